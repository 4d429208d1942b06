import type { PublicModel } from '@waggle/contracts';
import { cliJson, expectEventually, freePort, REPO_ROOT, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const MODEL_FIELDS: Record<keyof PublicModel, string> = {
  id: 'string',
  name: 'string',
  slug: 'string',
  provider: 'string',
  provider_name: 'string',
  context_limit: 'number',
  model_type: 'string',
  is_image_generation: 'boolean',
  is_vision: 'boolean',
  is_reasoning: 'boolean',
  is_tool_calling: 'boolean',
  is_json_schema: 'boolean',
};

interface Created {
  workspace_id: string;
  api_key: string;
}

describe('the gateway edge: keys, meter, models', () => {
  const apps: AppProcess[] = [];
  let gateway: string;

  beforeAll(async () => {
    apps.push(spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' }), spawnApp('gateway', await freePort(), { LOG_LEVEL: 'warn' }));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[1].baseUrl;
    // Whatever another suite loaded, these tests read the shipped catalog.
    await cliJson(['catalog', 'load', '--force']);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${gateway}${path}`, { headers });
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('creates a workspace and key with the CLI; the key lists models on both paths', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e models']);
    expect(created.workspace_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.api_key).toMatch(/^wgl_[0-9A-Za-z]{40}$/);

    const byProvider = await get('/v1/public/models', bearer(created.api_key));
    expect(byProvider.status).toBe(200);
    const publicModels = (await byProvider.json()) as PublicModel[];
    const byMaker = await get('/v1/models', bearer(created.api_key));
    expect(byMaker.status).toBe(200);
    const makerModels = (await byMaker.json()) as PublicModel[];

    expect(publicModels.length).toBeGreaterThan(20);
    expect(makerModels.map((model) => model.id)).toEqual(publicModels.map((model) => model.id));
    for (const model of publicModels) {
      expect(Object.keys(model).sort()).toEqual(Object.keys(MODEL_FIELDS).sort());
      for (const [field, type] of Object.entries(MODEL_FIELDS)) expect(typeof model[field as keyof PublicModel]).toBe(type);
      expect(['llm', 'image_generation']).toContain(model.model_type);
      expect(model.is_image_generation).toBe(model.model_type === 'image_generation');
      expect(Number.isInteger(model.context_limit) && model.context_limit >= 0).toBe(true);
      expect(model.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    expect(publicModels.some((model) => model.model_type === 'image_generation')).toBe(true);
    // Deprecated and embedding-only models are in the catalog file but never listed.
    const file = parse(readFileSync(join(REPO_ROOT, 'apps/catalog/src/models/data/models.yaml'), 'utf8')) as {
      models: Array<{ id: string; model_type: string; status: string }>;
    };
    const unlisted = file.models
      .filter((model) => model.status === 'deprecated' || model.model_type === 'embedding')
      .map((model) => model.id);
    expect(unlisted.length).toBeGreaterThan(5);
    const listedIds = new Set(publicModels.map((model) => model.id));
    expect(unlisted.filter((id) => listedIds.has(id))).toEqual([]);
    expect(publicModels).toHaveLength(file.models.length - unlisted.length);
    // An open model served by a host: the public path names the host, /v1/models the maker.
    const hosted = publicModels.find((model) => model.id.startsWith('groq/'));
    const hostedByMaker = makerModels.find((model) => model.id === hosted?.id);
    expect(hosted?.provider).toBe('groq');
    expect(hostedByMaker?.provider).not.toBe('groq');
  });

  it('loads a new catalog version with one command, without restarting anything', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e catalog load']);
    const shipped = readFileSync(join(REPO_ROOT, 'apps/catalog/src/models/data/models.yaml'), 'utf8');
    const extra = [
      '  - id: ollama/e2e-test-model',
      '    name: E2E Test Model (Ollama)',
      '    provider: ollama',
      '    maker: meta',
      '    provider_model_id: e2e-test-model',
      '    model_type: llm',
      '    context_limit: 8192',
      '    vision: false',
      '    reasoning: false',
      '    tool_calling: false',
      '    json_schema: false',
      '    status: active',
      "    pricing: { input: 0, cached_input: 0, cache_write: 0, output: 0, price_version: '2099-01-01' }",
      '',
    ].join('\n');
    const next = `${shipped.replace(/^version: .*$/m, "version: '2099.1.1'").trimEnd()}\n${extra}`;
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-catalog-')), 'models.yaml');
    writeFileSync(file, next);
    try {
      const loaded = await cliJson<{ version: string; loaded: boolean }>(['catalog', 'load', '--file', file]);
      expect(loaded).toMatchObject({ version: '2099.1.1', loaded: true });
      await expectEventually(async () => {
        const models = (await (await get('/v1/public/models', bearer(created.api_key))).json()) as PublicModel[];
        expect(models.find((model) => model.id === 'ollama/e2e-test-model')).toMatchObject({
          slug: 'e2e-test-model-ollama',
          provider: 'ollama',
        });
      });
      // The same version again is a no-op unless forced.
      expect(await cliJson(['catalog', 'load', '--file', file])).toMatchObject({ loaded: false });
    } finally {
      await cliJson(['catalog', 'load', '--force']);
    }
  });

  // How soon (the gateway's 4 s key cache, under the decisions' 5 s) is proven with a
  // controlled clock in api-key-authenticator.spec.ts; here, that it happens end to end.
  it('refuses a revoked key', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e revoke']);
    expect((await get('/v1/models', bearer(created.api_key))).status).toBe(200);
    await cliJson(['key', 'revoke', created.api_key.slice(0, 12), '--yes']);
    await expectEventually(async () => expect((await get('/v1/models', bearer(created.api_key))).status).toBe(401), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    expect(await (await get('/v1/models', bearer(created.api_key))).json()).toMatchObject({
      error_code: 'invalid_api_key',
      code: 'invalid_api_key',
    });
  });

  it("refuses a deleted workspace's key, without saying whether the workspace exists", async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e delete']);
    expect((await get('/v1/models', bearer(created.api_key))).status).toBe(200);
    await cliJson(['workspace', 'delete', created.workspace_id, '--yes']);
    await expectEventually(async () => expect((await get('/v1/models', bearer(created.api_key))).status).toBe(401), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    const body = (await (await get('/v1/models', bearer(created.api_key))).json()) as Record<string, string>;
    expect(body).toEqual({ error: body.message, message: expect.any(String), error_code: 'invalid_api_key', code: 'invalid_api_key' });
    expect(JSON.stringify(body)).not.toMatch(/delet|workspace/i);
  });

  it('lets exactly the daily cap through 30 parallel requests and answers the rest with the 429 body', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e meter']);
    await cliJson(['workspace', 'set-limits', created.workspace_id, '--rate-limit-per-day', '10']);
    const responses = await Promise.all(Array.from({ length: 30 }, () => get('/v1/models', bearer(created.api_key))));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);

    const refused = responses.find((response) => response.status === 429);
    const body = (await refused?.json()) as Record<string, unknown>;
    expect(body).toEqual({
      error: body.message,
      message: expect.stringMatching(/10.*midnight UTC/),
      error_code: 'api_rate_limit_exceeded',
      code: 'api_rate_limit_exceeded',
      limit: 10,
      current: 10,
    });
    expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused?.headers.get('x-ratelimit-limit')).toBe('10');
    expect(refused?.headers.get('x-ratelimit-remaining')).toBe('0');
    const ok = responses.find((response) => response.status === 200);
    expect(ok?.headers.get('x-ratelimit-limit')).toBe('10');
    expect(Number(ok?.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('does not meter the error catalog', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e unmetered']);
    await cliJson(['workspace', 'set-limits', created.workspace_id, '--rate-limit-per-day', '1']);
    for (let index = 0; index < 3; index += 1) expect((await get('/v1/error_codes', bearer(created.api_key))).status).toBe(200);
    expect((await get('/v1/models', bearer(created.api_key))).status).toBe(200);
    expect((await get('/v1/models', bearer(created.api_key))).status).toBe(429);
  });

  it('localizes errors in the workspace language', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e es', '--language', 'es']);
    await cliJson(['workspace', 'set-limits', created.workspace_id, '--rate-limit-per-day', '0']);
    const response = await get('/v1/models', bearer(created.api_key));
    expect(response.status).toBe(429);
    const body = (await response.json()) as { message: string };
    expect(body.message).toMatch(/medianoche UTC|UTC/);
    expect(body.message).not.toMatch(/midnight/);
  });

  it.each([
    ['no Authorization header', {}, 'unauthorized'],
    ['a Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 'invalid_api_key'],
    ['an empty bearer', { authorization: 'Bearer ' }, 'invalid_api_key'],
    ['an unknown key', { authorization: `Bearer wgl_${'a'.repeat(40)}` }, 'invalid_api_key'],
    ['SQL in the key', { authorization: "Bearer wgl_' OR 1=1 --" }, 'invalid_api_key'],
    ['an oversized key', { authorization: `Bearer wgl_${'x'.repeat(6000)}` }, 'invalid_api_key'],
  ])('answers %s with 401 in the JSON error shape', async (_, headers, code) => {
    const response = await get('/v1/models', headers as Record<string, string>);
    expect(response.status).toBe(401);
    const body = (await response.json()) as Record<string, string>;
    expect(body).toEqual({ error: body.message, message: expect.any(String), error_code: code, code });
  });

  it('answers an oversized header block with a JSON 4xx, not a 500', async () => {
    const response = await get('/v1/models', { authorization: 'Bearer x', 'x-padding': 'p'.repeat(40_000) });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(await response.json()).toMatchObject({ error_code: 'invalid_request' });
  });

  it('answers 503 when the meter store is unreachable, and says so in readiness', async () => {
    const created = await cliJson<Created>(['workspace', 'create', '--name', 'e2e no redis']);
    const isolated = spawnApp('gateway', await freePort(), { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, LOG_LEVEL: 'fatal' });
    try {
      await waitUntilLive(isolated);
      const response = await fetch(`${isolated.baseUrl}/v1/models`, { headers: bearer(created.api_key) });
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ error_code: 'upstream_request_failed' });
      const ready = await fetch(`${isolated.baseUrl}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ details: { redis: { status: 'down' } } });
    } finally {
      await isolated.stop();
    }
  });
});
