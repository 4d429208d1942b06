import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyDefinitions,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  OtlpReceiver,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';

const OPERATOR_KEY = 'operator-fake-key';

const DEFINITIONS = `
prompts:
  - deployment: personal
    variants:
      - name: own
        model: pk-chat
        credentials: workspace
        messages:
          - { role: user, content: "{{ question }}" }
      - name: hosted
        model: pk-chat
        messages:
          - { role: user, content: "{{ question }}" }
workflows:
  - deployment: personal-flow
    variants:
      - name: default
        output: "{{ ask.output }}"
        steps:
          - id: ask
            type: prompt
            model: pk-chat
            credentials: workspace
            messages: [ { role: user, content: "From the workflow" } ]
`;

/**
 * Workspace provider keys (the spec's decisions on usage governance) through the whole stack
 * over HTTP: gateway, invocation (the store, the key test, prompt runs and workflow steps) and
 * agent (runs on a key it resolves from invocation), against the fake provider, which records
 * the key each request presented. The workspace's key must reach the fake and nothing else: no
 * answer, no ledger record, no log line of any service, no exported span.
 */
describe('workspace provider keys: /v1/private/provider_credentials and credentials: workspace', () => {
  const fake = new FakeProviderServer();
  const receiver = new OtlpReceiver();
  const secret = `sk-ws-${randomBytes(16).toString('hex')}`;
  const apps: AppProcess[] = [];
  const answers: string[] = [];
  let gateway: string;
  let key: string;
  let workspaceId: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>) };
  };
  const invoke = (variant: string) => call('POST', '/v1/invoke', { deployment: 'personal', variant, inputs: { question: 'Hi' } });
  const keysSince = (from: number) => fake.requests.slice(from).map((record) => record.apiKey);
  const ledger = (requestId: string) =>
    expectEventually(async () => {
      const record = await call('GET', `/v1/public/requests/${requestId}`);
      expect(['completed', 'failed']).toContain(record.body?.status);
      return record.body;
    });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const endpoint = await receiver.start();
    const env = {
      LOG_LEVEL: 'info',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: OPERATOR_KEY,
      PROVIDER_MAX_RETRIES: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), env),
      spawnApp('gateway', await freePort(), env),
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[3].baseUrl;
    await loadCatalogWithFakeModels('2099.37.2', [fakeModel('pk-chat', { tool_calling: true })]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e provider keys']);
    key = created.api_key;
    workspaceId = created.workspace_id;
    await applyDefinitions(DEFINITIONS, workspaceId);
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
    await receiver.stop();
  });

  it('answers 422 personal_model_missing_credentials before any provider call while no key is stored', async () => {
    const from = fake.requests.length;
    const refused = await invoke('own');
    expect(refused).toEqual({
      status: 422,
      body: {
        error: 'The workspace has no credentials stored for provider Fake Provider',
        message: 'The workspace has no credentials stored for provider Fake Provider',
        error_code: 'personal_model_missing_credentials',
        code: 'personal_model_missing_credentials',
        details: { provider: 'fake' },
      },
    });
    expect(fake.requests.length).toBe(from);
    // The operator's key still serves the variant that asks for it.
    const hosted = await invoke('hosted');
    expect(hosted.status).toBe(200);
    expect(keysSince(from)).toEqual([OPERATOR_KEY]);
  });

  it('refuses what cannot be stored with 422 validation_error, and a key the provider refuses with 422 personal_model_invalid_credentials', async () => {
    for (const body of [
      { provider: 'nosuch', api_key: secret },
      { provider: 'local', api_key: secret },
      { provider: 'ollama', api_key: secret },
      { provider: 'fake', api_key: secret, base_url: 'ftp://example.com/v1' },
      { provider: 'fake', api_key: secret, base_url: 'http://10.0.0.1/v1' },
      { provider: 'fake', api_key: 'has spaces in it' },
    ]) {
      const answer = await call('POST', '/v1/private/provider_credentials', body);
      expect({ body, status: answer.status, code: answer.body?.error_code }).toEqual({ body, status: 422, code: 'validation_error' });
    }
    expect(await call('POST', '/v1/private/provider_credentials', { provider: 'fake' })).toMatchObject({
      status: 422,
      body: { error_code: 'missing_required_field' },
    });
    const from = fake.requests.length;
    const refused = await call('POST', '/v1/private/provider_credentials', { provider: 'fake', api_key: 'bad-0123456789abcdef' });
    expect(refused).toMatchObject({
      status: 422,
      body: { error_code: 'personal_model_invalid_credentials', details: { provider: 'fake', status: 401 } },
    });
    expect(fake.requests.slice(from).map((record) => [record.path, record.apiKey])).toEqual([['/v1/models', 'bad-0123456789abcdef']]);
    expect(await call('GET', '/v1/private/provider_credentials')).toEqual({ status: 200, body: { provider_credentials: [] } });
  });

  it('stores a key the provider accepted (tested with one list-models call) and shows only its last 4 characters', async () => {
    const from = fake.requests.length;
    const saved = await call('POST', '/v1/private/provider_credentials', { provider: 'fake', api_key: secret });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({
      provider: 'fake',
      hint: secret.slice(-4),
      base_url: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(fake.requests.slice(from).map((record) => [record.path, record.apiKey])).toEqual([['/v1/models', secret]]);
    expect(await call('GET', '/v1/private/provider_credentials')).toEqual({ status: 200, body: { provider_credentials: [saved.body] } });
  });

  it('runs a variant with credentials: workspace on the stored key, whole and streamed, and a hosted one on the operator’s', async () => {
    const from = fake.requests.length;
    const own = await invoke('own');
    expect(own.status).toBe(200);
    const hosted = await invoke('hosted');
    expect(hosted.status).toBe(200);
    const response = await fetch(`${gateway}/v1/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ deployment: 'personal', variant: 'own', inputs: { question: 'Hi' }, streaming: true }),
    });
    const events = (await collectSse(response)).filter((event) => event !== '[DONE]') as Array<Record<string, unknown>>;
    answers.push(JSON.stringify(events));
    expect(events.at(-1)?.type).toBe('usage');
    expect(keysSince(from)).toEqual([secret, OPERATOR_KEY, secret]);
    const record = await ledger(own.body?.request_id as string);
    answers.push(JSON.stringify(record));
    expect(record?.status).toBe('completed');
  });

  it('runs an agent with credentials: workspace on the stored key (resolved from the invocation service)', async () => {
    const created = await call('POST', `/v1/public/workspaces/${workspaceId}/agents`, {
      agent: { name: 'Personal', llm_model: 'pk-chat', model_type: 'llm', credentials: 'workspace' },
    });
    expect(created.status).toBe(200);
    const agent = created.body?.agent as { id: string; credentials: string };
    expect(agent.credentials).toBe('workspace');
    const from = fake.requests.length;
    const answer = await call('POST', '/v1/agent/invoke', { agent: agent.id, message: 'Hello' });
    expect(answer.status).toBe(200);
    expect(keysSince(from)).toEqual([secret]);
    answers.push(JSON.stringify(await ledger(answer.body?.request_id as string)));
  });

  it('runs a workflow step with credentials: workspace on the stored key', async () => {
    const from = fake.requests.length;
    const answer = await call('POST', '/v1/workflow/invoke', { deployment: 'personal-flow', variant: 'default' });
    expect(answer.status).toBe(200);
    expect(keysSince(from)).toEqual([secret]);
  });

  it('answers 422 personal_model_invalid_credentials when the provider refuses the stored key at run time, never falling back to the operator’s', async () => {
    fake.rejectKeys(secret);
    const from = fake.requests.length;
    const refused = await invoke('own');
    expect(refused).toMatchObject({
      status: 422,
      body: { error_code: 'personal_model_invalid_credentials', details: { provider: 'fake', status: 401 } },
    });
    expect(keysSince(from)).toEqual([secret]);
    // The failed run's ledger record (an error body names no request id: the newest of the workspace).
    const failed = await expectEventually(async () => {
      const listed = await call('GET', '/v1/private/requests?limit=1');
      const [newest] = listed.body?.requests as Array<Record<string, unknown>>;
      expect(newest).toMatchObject({ status: 'failed', data: { error_code: 'personal_model_invalid_credentials' } });
      return newest;
    });
    answers.push(JSON.stringify(failed));
  });

  it('deletes the key (204), then 404 for a provider with none; runs on the workspace’s credentials answer 422 missing again', async () => {
    expect(await call('DELETE', '/v1/private/provider_credentials/fake')).toEqual({ status: 204, body: null });
    expect(await call('DELETE', '/v1/private/provider_credentials/fake')).toMatchObject({
      status: 404,
      body: { error_code: 'resource_not_found' },
    });
    expect(await call('DELETE', '/v1/private/provider_credentials/..%2F')).toMatchObject({ status: 404 });
    expect((await invoke('own')).body?.error_code).toBe('personal_model_missing_credentials');
  });

  it('stores, lists and deletes a key with the CLI (provider-credential set|list|delete), the key read from a file and never printed', async () => {
    const keyFile = join(mkdtempSync(join(tmpdir(), 'waggle-provider-key-')), 'key.txt');
    const cliKey = `sk-cli-${randomBytes(12).toString('hex')}`;
    writeFileSync(keyFile, `${cliKey}\n`);
    const from = fake.requests.length;
    const saved = await cliJson<{ credential: Record<string, unknown>; replaced: boolean }>([
      'provider-credential',
      'set',
      workspaceId,
      'fake',
      '--api-key-file',
      keyFile,
    ]);
    answers.push(JSON.stringify(saved));
    expect(saved).toMatchObject({ credential: { provider: 'fake', hint: cliKey.slice(-4), base_url: null }, replaced: false });
    expect(keysSince(from)).toEqual([cliKey]);
    const listed = await cliJson<Array<Record<string, unknown>>>(['provider-credential', 'list', workspaceId]);
    answers.push(JSON.stringify(listed));
    expect(listed).toEqual([saved.credential]);
    expect(JSON.stringify(saved) + JSON.stringify(listed)).not.toContain(cliKey);
    expect(await cliJson(['provider-credential', 'delete', workspaceId, 'fake', '--yes'])).toEqual({ provider: 'fake' });
  });

  it('never shows the key: not in an answer, a ledger record, a log line of any service, or an exported span; the fake saw it', async () => {
    expect(fake.requests.some((record) => record.apiKey === secret)).toBe(true);
    expect(answers.filter((answer) => answer.includes(secret))).toEqual([]);
    await expectEventually(() => expect(receiver.spans.length).toBeGreaterThan(0));
    expect(JSON.stringify(receiver.spans)).not.toContain(secret);
    for (const app of apps) expect(app.output()).not.toContain(secret);
    expect(apps[1].output()).toContain('provider credential saved');
  });
});
