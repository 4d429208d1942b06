import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReleaseHistoryEntry } from '@waggle/contracts';
import {
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';

const MODEL = 'fake-release-chat';

function variant(name: string, text: string, extra: Record<string, unknown> = {}) {
  return { name, model: MODEL, messages: [{ role: 'user', content: `${text} {{ q }}` }], ...extra };
}

/**
 * Releases over HTTP (the spec's decisions: staged versions, labels and pointers, invoke
 * additions, splits, release gate): what each pointer serves, as a client sees it in answers
 * and in the ledger, across two gateway replicas and a restart of the invocation service.
 */
describe('releases', () => {
  const fake = new FakeProviderServer();
  const apps: { catalog?: AppProcess; invocation?: AppProcess; gateways: AppProcess[] } = { gateways: [] };
  let env: Record<string, string>;
  let gateway: string;
  let key: string;
  let otherKey: string;
  let workspaceId: string;

  const call = (path: string, method: string, body?: unknown, as = key, base = gateway) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });
  const apply = async (prompts: unknown, as = key) => json(await call('/v1/private/prompts/apply', 'POST', { prompts }, as));
  const invoke = async (body: Record<string, unknown>, base = gateway, as = key) =>
    json(await call('/v1/prompt/invoke', 'POST', { deployment: 'helper', variant: 'default', inputs: { q: 'x' }, ...body }, as, base));
  const release = (path: string, method: string, body?: unknown, as = key) =>
    call(`/v1/private/prompts/helper/variants/default/${path}`, method, body, as);

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key' };
    apps.catalog = spawnApp('catalog', await freePort(), env);
    apps.invocation = spawnApp('invocation', await freePort(), env);
    const gatewayEnv = { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' };
    apps.gateways = [spawnApp('gateway', await freePort(), gatewayEnv), spawnApp('gateway', await freePort(), gatewayEnv)];
    await Promise.all([apps.catalog, apps.invocation, ...apps.gateways].map((app) => waitUntilLive(app)));
    gateway = apps.gateways[0].baseUrl;
    await loadCatalogWithFakeModels('2099.7.1', [fakeModel(MODEL, { reasoning: false })]);
    const created = await cliJson<{ api_key: string; workspace_id: string }>(['workspace', 'create', '--name', 'e2e releases']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    otherKey = (await cliJson<{ api_key: string }>(['workspace', 'create', '--name', 'e2e releases other'])).api_key;
  });

  afterAll(async () => {
    await Promise.all([apps.catalog, apps.invocation, ...apps.gateways].map((app) => app?.stop()));
    await fake.stop();
  });

  it('stages a version without serving it, and serves labels, latest and pinned versions with the version in answers and ledger', async () => {
    expect((await apply([{ deployment: 'helper', variants: [variant('default', 'one')] }])).status).toBe(200);
    const staged = await apply([{ deployment: 'helper', variants: [variant('default', 'two', { stage: true })] }]);
    expect(staged).toMatchObject({
      status: 200,
      body: { prompts: [{ variants: [{ name: 'default', version: 2, changed: true, staged: true, deployed_version: 1 }] }] },
    });

    // Without label or version: the deployed version, and the contract's fields only.
    const plain = await invoke({});
    expect(plain.body.response).toBe('Echo: one x');
    expect(Object.keys(plain.body).sort()).toEqual(['duration', 'model', 'reasoning', 'request_id', 'response', 'stop_reason', 'usage']);

    expect((await invoke({ label: 'latest' })).body).toMatchObject({ response: 'Echo: two x', version: 2, label: 'latest' });
    expect((await invoke({ version: 1 })).body).toMatchObject({ response: 'Echo: one x', version: 1 });
    expect((await invoke({ label: 'deployed' })).body).toMatchObject({ response: 'Echo: one x', version: 1, label: 'deployed' });

    const both = await invoke({ label: 'latest', version: 1 });
    expect(both).toMatchObject({ status: 400, body: { error_code: 'validation_error' } });
    expect(both.body.details).toEqual([
      { field: 'label', messages: ['Give a label or a version, not both'] },
      { field: 'version', messages: ['Give a label or a version, not both'] },
    ]);
    expect(await invoke({ label: 'nope' })).toMatchObject({
      status: 404,
      body: { error_code: 'resource_not_found', message: 'Variant helper/default has no label nope' },
    });
    expect(await invoke({ version: 9 })).toMatchObject({
      status: 404,
      body: { error_code: 'resource_not_found', message: 'Variant helper/default has no version 9' },
    });

    const set = await json(await release('labels/staging', 'PUT', { version: 2 }));
    expect(set).toMatchObject({
      status: 200,
      body: { pointer: 'staging', from: null, to: 2, actor: expect.stringMatching(/^api_key:/), override: false },
    });
    const labelled = await invoke({ label: 'staging' });
    expect(labelled.body).toMatchObject({ response: 'Echo: two x', version: 2, label: 'staging' });

    const streamed = await collectSse(
      await call('/v1/prompt/invoke', 'POST', {
        deployment: 'helper',
        variant: 'default',
        streaming: true,
        inputs: { q: 'x' },
        label: 'staging',
      }),
    );
    expect(streamed.find((event) => (event as { type?: string }).type === 'usage')).toMatchObject({
      type: 'usage',
      version: 2,
      label: 'staging',
    });

    await expectEventually(async () => {
      const lookup = await json(await call(`/v1/public/requests/${labelled.body.request_id as string}`, 'GET'));
      expect(lookup.body).toMatchObject({ status: 'completed', version: 2, label: 'staging' });
    });
    const plainLookup = await json(await call(`/v1/public/requests/${plain.body.request_id as string}`, 'GET'));
    expect(plainLookup.body).toMatchObject({ version: 1, label: null });

    const versions = await json(await call('/v1/private/prompts/helper/variants/default/versions', 'GET'));
    expect(versions.body.versions).toEqual([
      expect.objectContaining({ version: 2, current: false, labels: ['staging', 'latest'] }),
      expect.objectContaining({ version: 1, current: true, labels: [] }),
    ]);

    expect(await json(await release('labels/latest', 'PUT', { version: 1 }))).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error' },
    });
    expect(await json(await release('labels/Bad!', 'PUT', { version: 1 }))).toMatchObject({
      status: 422,
      body: { error_code: 'validation_error' },
    });
    expect(await json(await release('labels/staging', 'PUT', { version: 7 }))).toMatchObject({
      status: 404,
      body: { error_code: 'resource_not_found' },
    });
  });

  it('promotes, rolls back and keeps the history, newest first', async () => {
    const promoted = await json(await release('promote', 'POST', { version: 2, reason: 'ship two' }));
    expect(promoted).toMatchObject({ status: 200, body: { pointer: 'deployed', from: 1, to: 2, reason: 'ship two' } });
    // The other gateway replica is served by the same (sole) invocation replica, whose cache the move cleared.
    await expectEventually(async () => expect((await invoke({}, apps.gateways[1].baseUrl)).body.response).toBe('Echo: two x'));

    const rolled = await json(await release('rollback', 'POST', { reason: 'regression' }));
    expect(rolled).toMatchObject({ status: 200, body: { pointer: 'deployed', from: 2, to: 1, reason: 'regression' } });
    expect((await invoke({})).body.response).toBe('Echo: one x');

    // The label was only ever set: there is no earlier target.
    expect(await json(await release('rollback', 'POST', { label: 'staging' }))).toMatchObject({
      status: 409,
      body: {
        error_code: 'release_rollback_unavailable',
        message: 'The pointer staging of helper/default has no earlier target to roll back to',
      },
    });
    expect((await json(await release('labels/staging', 'DELETE'))).body).toMatchObject({ pointer: 'staging', from: 2, to: null });
    expect(await invoke({ label: 'staging' })).toMatchObject({ status: 404 });

    const history = (await json(await release('history', 'GET'))).body.history as ReleaseHistoryEntry[];
    expect(history.map(({ pointer, from, to, reason }) => ({ pointer, from, to, reason }))).toEqual([
      { pointer: 'staging', from: 2, to: null, reason: null },
      { pointer: 'deployed', from: 2, to: 1, reason: 'regression' },
      { pointer: 'deployed', from: 1, to: 2, reason: 'ship two' },
      { pointer: 'staging', from: null, to: 2, reason: null },
      { pointer: 'deployed', from: null, to: 1, reason: 'apply' },
    ]);
    for (const entry of history) expect(entry.actor).toMatch(/^api_key:/);
  });

  it('stages every change of a protected variant and gates its promotion unless overridden with a reason', async () => {
    expect(await json(await release('protection', 'GET'))).toMatchObject({
      status: 200,
      body: { protected: false, min_pass_rate: 1, max_age_days: 7 },
    });
    expect(await json(await release('protection', 'PUT', { protected: true, max_age_days: 3 }))).toMatchObject({
      status: 200,
      body: { protected: true, min_pass_rate: 1, max_age_days: 3 },
    });
    expect(await json(await release('protection', 'PUT', { protected: true, min_pass_rate: 2 }))).toMatchObject({ status: 422 });

    const applied = await apply([{ deployment: 'helper', variants: [variant('default', 'three')] }]);
    expect(applied.body).toMatchObject({ prompts: [{ variants: [{ version: 3, staged: true, protected: true, deployed_version: 1 }] }] });
    expect((await invoke({})).body.response).toBe('Echo: one x');

    const refused = await json(await release('promote', 'POST', { version: 3 }));
    expect(refused).toMatchObject({ status: 409, body: { error_code: 'release_gate_not_satisfied' } });
    expect(refused.body.details).toEqual([
      { field: 'version', messages: ['No completed experiment run has version 3 as an active candidate'] },
    ]);

    expect(await json(await release('promote', 'POST', { version: 3, override: true }))).toMatchObject({
      status: 400,
      body: { error_code: 'validation_error' },
    });
    const overridden = await json(await release('promote', 'POST', { version: 3, override: true, reason: 'hotfix, run pending' }));
    expect(overridden).toMatchObject({
      status: 200,
      body: { pointer: 'deployed', from: 1, to: 3, override: true, reason: 'hotfix, run pending', experiment_run_id: null },
    });
    expect((await invoke({})).body.response).toBe('Echo: three x');
    // A label is not gated.
    expect((await release('labels/canary', 'PUT', { version: 2 })).status).toBe(200);
  });

  it('keeps another workspace out of every release route and label', async () => {
    for (const [path, method, body] of [
      ['history', 'GET'],
      ['protection', 'GET'],
      ['protection', 'PUT', { protected: false }],
      ['labels/canary', 'PUT', { version: 1 }],
      ['labels/canary', 'DELETE'],
      ['promote', 'POST', { version: 1 }],
      ['rollback', 'POST', {}],
    ] as Array<[string, string, unknown?]>) {
      expect(await json(await release(path, method, body, otherKey))).toMatchObject({
        status: 404,
        body: { error_code: 'resource_not_found' },
      });
    }
    expect(await invoke({ label: 'canary' }, gateway, otherKey)).toMatchObject({ status: 404 });
    expect((await invoke({ label: 'canary' })).body).toMatchObject({ version: 2 });
  });

  it('pins a label or a version on the prompt webhook trigger when it is accepted', async () => {
    const [deployment] = (await apply([{ deployment: 'helper', variants: [variant('default', 'three')] }])).body.prompts as Array<{
      prompt_endpoint_id: string;
      webhook_secret: string;
      variants: Array<{ variant_id: string }>;
    }>;
    const trigger = async (body: Record<string, unknown>) =>
      json(
        await fetch(`${gateway}/v1/prompt/webhooks/${deployment.prompt_endpoint_id}/variants/${deployment.variants[0].variant_id}`, {
          method: 'POST',
          headers: { 'x-service-webhook-secret': deployment.webhook_secret, 'content-type': 'application/json' },
          body: JSON.stringify({ inputs: { q: 'x' }, async: { callback_url: 'http://127.0.0.1:9/hook' }, ...body }),
        }),
      );
    const accepted = await trigger({ label: 'canary' });
    expect(accepted.status).toBe(202);
    await expectEventually(async () => {
      const lookup = await json(await call(`/v1/public/requests/${accepted.body.request_id as string}`, 'GET'));
      expect(lookup.body).toMatchObject({ status: 'completed', version: 2, label: 'canary', data: { response: 'Echo: two x' } });
    });
    expect(await trigger({ label: 'canary', version: 1 })).toMatchObject({ status: 400, body: { error_code: 'validation_error' } });
    expect(await trigger({ label: 'nope' })).toMatchObject({ status: 404, body: { error_code: 'resource_not_found' } });
    expect(await trigger({ version: 99 })).toMatchObject({ status: 404, body: { error_code: 'resource_not_found' } });
  });

  it('refuses an invalid split before writing anything', async () => {
    const bad = await apply([
      {
        deployment: 'ab',
        variants: [
          variant('a', 'A'),
          variant('default', 'D', {
            split: [
              { variant: 'a', weight: 60 },
              { variant: 'zzz', weight: 30 },
            ],
          }),
        ],
      },
    ]);
    expect(bad).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });
    expect(bad.body.details).toEqual([
      { field: 'prompts[0].variants[1].split', messages: ['The weights of a split must sum to 100 (these sum to 90)'] },
      { field: 'prompts[0].variants[1].split[1].variant', messages: ['The deployment has no variant zzz to split to'] },
    ]);
    const listed = await json(await call('/v1/private/prompts', 'GET'));
    expect((listed.body.prompts as Array<{ deployment: string }>).map((prompt) => prompt.deployment)).not.toContain('ab');
  });

  it('assigns each user one side of a split, the same on two gateway replicas and after a restart of the invocation service', async () => {
    const applied = await apply([
      {
        deployment: 'ab',
        variants: [
          variant('a', 'A'),
          variant('b', 'B'),
          variant('default', 'D', {
            split: [
              { variant: 'a', weight: 50 },
              { variant: 'b', weight: 50 },
            ],
          }),
        ],
      },
    ]);
    expect(applied.status).toBe(200);
    // The deployments list shows which variant is a split and its targets, in the file's order.
    const listed = await json(await call('/v1/private/prompts', 'GET'));
    const ab = (listed.body.prompts as Array<{ deployment: string; variants: Array<Record<string, unknown>> }>).find(
      (prompt) => prompt.deployment === 'ab',
    );
    expect(ab?.variants.map((listedVariant) => [listedVariant.name, listedVariant.split])).toEqual([
      ['a', null],
      ['b', null],
      [
        'default',
        {
          id: expect.any(String),
          targets: [
            { variant: 'a', weight: 50 },
            { variant: 'b', weight: 50 },
          ],
        },
      ],
    ]);
    const users = Array.from({ length: 24 }, (_, i) => `user-${i}`);
    const served = async (base: string) => {
      const seen: Record<string, string> = {};
      for (const user of users) {
        const answer = await invoke({ deployment: 'ab', variant: 'default', user }, base);
        expect(answer.body).toMatchObject({ version: 1 });
        seen[user] = answer.body.response as string;
      }
      return seen;
    };
    const first = await served(apps.gateways[0].baseUrl);
    // Both sides are served to someone (24 users at 50/50: all on one side is a 1 in 8 million chance).
    expect(new Set(Object.values(first))).toEqual(new Set(['Echo: A x', 'Echo: B x']));
    expect(await served(apps.gateways[1].baseUrl)).toEqual(first);

    await apps.invocation?.stop();
    apps.invocation = spawnApp('invocation', await freePort(), env);
    await waitUntilLive(apps.invocation);
    expect(await served(apps.gateways[1].baseUrl)).toEqual(first);

    const one = await invoke({ deployment: 'ab', variant: 'default', user: users[0] });
    await expectEventually(async () => {
      const row = (await json(await call(`/v1/private/requests?user=${users[0]}&limit=1`, 'GET'))).body.requests as Array<
        Record<string, unknown>
      >;
      expect(row[0]).toMatchObject({
        request_id: one.body.request_id,
        version: 1,
        split: { variant: 'default', sticky: true, target: { weight: 50 } },
      });
    });
  });

  it('works from the CLI too: apply --stage, label set, promote, history with the operator as actor', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-releases-')), 'prompts.yaml');
    writeFileSync(
      file,
      `prompts:\n  - deployment: cli\n    variants:\n      - name: default\n        model: ${MODEL}\n        messages: [{ role: user, content: "cli one {{ q }}" }]\n`,
    );
    await cliJson(['apply', '-f', file, '--workspace', workspaceId]);
    writeFileSync(
      file,
      `prompts:\n  - deployment: cli\n    variants:\n      - name: default\n        model: ${MODEL}\n        messages: [{ role: user, content: "cli two {{ q }}" }]\n`,
    );
    const [staged] = await cliJson<Array<{ variants: Array<Record<string, unknown>> }>>([
      'apply',
      '-f',
      file,
      '--workspace',
      workspaceId,
      '--stage',
    ]);
    expect(staged.variants[0]).toMatchObject({ version: 2, staged: true, deployed_version: 1 });
    expect(await cliJson(['release', 'label', 'set', workspaceId, 'cli', 'default', 'beta', '2'])).toMatchObject({
      pointer: 'beta',
      to: 2,
      actor: 'operator',
    });
    expect(await cliJson(['release', 'promote', workspaceId, 'cli', 'default', '2', '--reason', 'from the cli'])).toMatchObject({
      pointer: 'deployed',
      from: 1,
      to: 2,
      actor: 'operator',
    });
    expect((await invoke({ deployment: 'cli' })).body.response).toBe('Echo: cli two x');
    const history = await cliJson<ReleaseHistoryEntry[]>(['release', 'history', workspaceId, 'cli', 'default']);
    expect(history.map((entry) => [entry.pointer, entry.to, entry.actor])).toEqual([
      ['deployed', 2, 'operator'],
      ['beta', 2, 'operator'],
      ['deployed', 1, 'operator'],
    ]);
    const versions = await cliJson<Array<{ version: number; labels: string[]; current: boolean }>>([
      'release',
      'versions',
      workspaceId,
      'cli',
      'default',
    ]);
    expect(versions.map(({ version, labels, current }) => ({ version, labels, current }))).toEqual([
      { version: 2, labels: ['beta', 'latest'], current: true },
      { version: 1, labels: [], current: false },
    ]);
  });
});
