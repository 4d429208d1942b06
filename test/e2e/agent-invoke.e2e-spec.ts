import type { AgentRecord } from '@waggle/contracts';
import {
  buildFixtureDocuments,
  CallbackReceiver,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  readSse,
  spawnApp,
  TestHttpsServer,
  waitUntilLive,
  type AppProcess,
  type FixtureDocument,
  type FixtureDocumentType,
  type ReceivedCallback,
} from '@waggle/testing';
import { createHmac } from 'node:crypto';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { TEST_DATABASE_URL } from '../setup/test-env';

interface Invoked {
  request_id: string;
  response: string;
  thread_id?: string;
  model: string;
  usage: Record<string, unknown>;
  tool_calls: Array<{ tool_name: string; tool_input: string; observation: string }>;
}

type StreamEvent = Record<string, unknown> & { type: string };

const DOCUMENT_TYPES: FixtureDocumentType[] = ['csv', 'xlsx', 'pdf', 'docx', 'txt', 'md'];

/**
 * Agent invoke through the whole stack over HTTP, as a client calls it: gateway, agent
 * service (threads in its schema, read_file through the SSRF guard), invocation (the
 * ledger), the callback-dispatcher, against the fake provider (scripted tool calls) and a
 * local HTTPS server with a test certificate authority the agent service trusts by setting.
 */
describe('agent invoke: POST /v1/agent/invoke and agent webhook triggers', () => {
  const fake = new FakeProviderServer({});
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  let files: TestHttpsServer;
  let fixtures: Record<FixtureDocumentType, FixtureDocument>;
  let gateway: string;
  let receiverUrl: string;
  let key: string;
  let workspaceId: string;
  let agent: AgentRecord;
  let blind: AgentRecord;
  let capped: AgentRecord;
  let broken: AgentRecord;
  let slow: AgentRecord;
  let db: Client;

  const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
    fetch(`${gateway}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const invoke = (body: Record<string, unknown>) => post('/v1/agent/invoke', body);
  const createAgent = async (fields: Record<string, unknown>): Promise<AgentRecord> => {
    const response = await post(`/v1/public/workspaces/${workspaceId}/agents`, { agent: { model_type: 'llm', ...fields } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { agent: AgentRecord }).agent;
  };
  /** The model requests the fake received for one run's agent model since `from`. */
  const requestsOf = (model: string, from: number) => fake.requests.slice(from).filter((request) => request.model === model);
  const toolMessages = (body: unknown) =>
    ((body as { messages: Array<{ role: string; content: unknown }> }).messages ?? []).filter((message) => message.role === 'tool');
  const ledgerRow = async (requestId: string) =>
    (
      await db.query<{ status: string; usage: unknown; data: Record<string, unknown> | null; user: string | null }>(
        'SELECT status, usage, data, user_label AS "user" FROM invocation.requests WHERE id = $1',
        [requestId],
      )
    ).rows[0];

  beforeAll(async () => {
    fixtures = await buildFixtureDocuments();
    files = await TestHttpsServer.start();
    for (const type of DOCUMENT_TYPES) files.serve(`/docs/${fixtures[type].fileName}`, fixtures[type].bytes, fixtures[type].contentType);
    files.serve('/docs/photo.png', Buffer.from('not really a png'), 'image/png');
    const fakeUrl = await fake.start();
    receiverUrl = await receiver.start();
    fake.setModel('fake-agent-broken', { error: { status: 500, message: 'upstream exploded' } });
    fake.setModel('fake-agent-slow', { tokenDelayMs: 150, response: Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ') });
    // No provider retries: a scripted failure answers at once.
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), env),
      spawnApp('agent', await freePort(), {
        ...env,
        ATTACHMENT_URL_ALLOWLIST: '127.0.0.1',
        ATTACHMENT_EXTRA_CA_FILE: files.writeCaFile(),
        AGENT_TRIGGER_LOCK_MS: '2000',
      }),
      spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' }),
    );
    const gatewayApp = spawnApp('gateway', await freePort(), { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' });
    apps.push(gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    await loadCatalogWithFakeModels('2099.11.1', [
      fakeModel('fake-agent', { tool_calling: true, vision: true, context_limit: 100_000 }),
      fakeModel('fake-agent-blind', { tool_calling: true, vision: false }),
      fakeModel('fake-agent-capped', { tool_calling: true }),
      fakeModel('fake-agent-broken', { tool_calling: true }),
      fakeModel('fake-agent-slow', { tool_calling: true }),
    ]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e agents',
      '--plan',
      'enterprise',
    ]);
    key = created.api_key;
    workspaceId = created.workspace_id;
    agent = await createAgent({
      name: 'Reader',
      llm_model: 'fake-agent',
      instruction_prompt: 'You are the Reader.',
      temperature: 0.2,
      max_token: 500,
    });
    blind = await createAgent({ name: 'Blind', llm_model: 'fake-agent-blind' });
    capped = await createAgent({ name: 'Capped', llm_model: 'fake-agent-capped', max_tool_calls: 2 });
    broken = await createAgent({ name: 'Broken', llm_model: 'fake-agent-broken' });
    slow = await createAgent({ name: 'Slow', llm_model: 'fake-agent-slow' });
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await db?.end();
    await fake.stop();
    await receiver.stop();
    await files?.close();
  });

  it('answers a non-streaming invoke with exactly the decisions shape, the agent settings sent to the model', async () => {
    fake.setModel('fake-agent', {});
    const from = fake.requests.length;
    const response = await invoke({ agent: agent.id, message: 'Hello there', metadata: { team: 'blue' }, user: 'user-7' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Invoked;
    expect(Object.keys(body).sort()).toEqual(['model', 'request_id', 'response', 'tool_calls', 'usage']);
    expect(body).toMatchObject({
      request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/),
      response: 'Echo: Hello there',
      model: 'fake-agent',
      tool_calls: [],
      usage: {
        prompt_tokens: { total_tokens: expect.any(Number), cached_tokens: 0 },
        completion_tokens: { total_tokens: expect.any(Number), reasoning_tokens: 0 },
        total_tokens: expect.any(Number),
      },
    });
    const [sent] = requestsOf('fake-agent', from);
    const payload = sent.body as {
      messages: Array<{ role: string; content: unknown }>;
      temperature: number;
      max_tokens?: number;
      max_completion_tokens?: number;
      tools?: unknown;
    };
    expect(payload.messages[0]).toEqual({ role: 'system', content: 'You are the Reader.' });
    expect(payload.messages.at(-1)).toMatchObject({ role: 'user', content: 'Hello there' });
    expect(payload.temperature).toBe(0.2);
    expect(payload.max_tokens ?? payload.max_completion_tokens).toBe(500);
    expect(payload.tools).toBeUndefined();
    // Never given to the model; recorded in the ledger with the run.
    expect(JSON.stringify(payload)).not.toContain('user-7');
    await expectEventually(async () => expect(await ledgerRow(body.request_id)).toMatchObject({ status: 'completed', user: 'user-7' }));
  });

  it('takes thread_id: null (an unset field, as clients send it) as no thread', async () => {
    fake.setModel('fake-agent', {});
    const response = await invoke({
      agent: agent.id,
      message: 'No thread',
      thread_id: null,
      messages: null,
      attachments: null,
      image_urls: null,
      metadata: null,
      user: null,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Invoked;
    expect(body.response).toBe('Echo: No thread');
    expect(body).not.toHaveProperty('thread_id');
  });

  it('stores a thread and resumes it on the next call; caller messages are context only and never stored', async () => {
    fake.setModel('fake-agent', {});
    const thread = `thread-${Date.now()}`;
    const first = await invoke({
      agent: agent.id,
      message: 'My name is Ada',
      thread_id: thread,
      messages: [{ role: 'user', content: 'caller-only context' }],
    });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ thread_id: thread, response: 'Echo: My name is Ada' });

    const from = fake.requests.length;
    const second = await invoke({ agent: agent.id, message: 'What is my name?', thread_id: thread });
    expect(second.status).toBe(200);
    const sent = requestsOf('fake-agent', from)[0].body as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.map((message) => [message.role, message.content])).toEqual([
      ['system', 'You are the Reader.'],
      ['user', 'My name is Ada'],
      ['assistant', 'Echo: My name is Ada'],
      ['user', 'What is my name?'],
    ]);
    const stored = await db.query(
      `SELECT m.role, m.content FROM agent.agent_thread_messages m JOIN agent.agent_threads t ON t.id = m.thread_id WHERE t.thread_key = $1 ORDER BY m.id`,
      [thread],
    );
    expect(stored.rows.map((row: { role: string; content: string }) => row.content)).toEqual([
      'My name is Ada',
      'Echo: My name is Ada',
      'What is my name?',
      'Echo: What is my name?',
    ]);
    expect(JSON.stringify(stored.rows)).not.toContain('caller-only context');
  });

  it.each(DOCUMENT_TYPES)('reads a %s attachment through read_file: the observation holds its text', async (type) => {
    const url = files.url(`/docs/${fixtures[type].fileName}`);
    fake.setModel('fake-agent', {
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { file_url: url } }] }, { response: `Read the ${type}.` }],
    });
    const from = fake.requests.length;
    const response = await invoke({
      agent: agent.id,
      message: 'Summarise the file',
      attachments: [type === 'pdf' ? { file_url: url } : url],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Invoked;
    expect(body.response).toBe(`Read the ${type}.`);
    expect(body.tool_calls).toHaveLength(1);
    expect(body.tool_calls[0].tool_name).toBe('read_file');
    expect(JSON.parse(body.tool_calls[0].tool_input)).toEqual({ file_url: url });
    const observation = JSON.parse(body.tool_calls[0].observation) as { content: string; truncated: boolean; type: string };
    expect(observation.content).toContain(fixtures[type].expectedText);
    expect(observation.truncated).toBe(false);
    // The manifest named the file; the follow-up turn carried the observation back to the model.
    const sent = requestsOf('fake-agent', from);
    const system = (sent[0].body as { messages: Array<{ role: string; content: string }> }).messages[0];
    expect(system.content).toContain('<available_files>');
    expect(system.content).toContain(url);
    expect(JSON.stringify(toolMessages(sent[1].body))).toContain(fixtures[type].expectedText.slice(0, 20));
  });

  it('lets a follow-up turn read an attachment of an earlier structured message, but not a URL only mentioned in text', async () => {
    const url = files.url(`/docs/${fixtures.md.fileName}`);
    const mentioned = files.url(`/docs/${fixtures.csv.fileName}`);
    fake.setModel('fake-agent', {
      turns: [
        {
          toolCalls: [
            { name: 'read_file', arguments: { file_url: url } },
            { name: 'read_file', arguments: { file_url: mentioned } },
          ],
        },
        { response: 'Done.' },
      ],
    });
    const response = await invoke({
      agent: agent.id,
      message: 'And what did that file say?',
      messages: [
        { role: 'user', content: 'Here is my notes file', attachments: [url] },
        { role: 'assistant', content: `Got it. There is also ${mentioned}` },
      ],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Invoked;
    expect(JSON.parse(body.tool_calls[0].observation).content).toContain(fixtures.md.expectedText);
    expect(JSON.parse(body.tool_calls[1].observation)).toMatchObject({
      file: mentioned,
      error: expect.stringContaining('not an attachment'),
    });
  });

  it.each([
    [
      'six attachments',
      () => ({ attachments: [1, 2, 3, 4, 5].map((n) => files.url(`/docs/a${n}.pdf`)), image_urls: [files.url('/docs/photo.png')] }),
      'attachments',
    ],
    ['an http:// URL', () => ({ attachments: ['http://example.com/report.pdf'] }), 'attachments[0]'],
    ['an unsupported type', () => ({ attachments: [files.url('/docs/tool.exe')] }), 'attachments[0]'],
    [
      'an http:// attachment in earlier messages',
      () => ({ messages: [{ role: 'user', content: 'old', attachments: ['http://example.com/a.pdf'] }] }),
      'messages[0].attachments[0]',
    ],
  ])('answers %s with 422 before any stream opens or model call', async (_name, fieldsOf, field) => {
    const fields = fieldsOf();
    const from = fake.requests.length;
    for (const streaming of [false, true]) {
      const response = await invoke({ agent: agent.id, message: 'hi', streaming, ...fields });
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toContain('application/json');
      expect(await response.json()).toMatchObject({ error_code: 'validation_error', code: 'validation_error', details: [{ field }] });
    }
    expect(fake.requests.length).toBe(from);
  });

  it('answers an image for a model without vision with 422 vision_not_supported before anything runs', async () => {
    const from = fake.requests.length;
    const response = await invoke({
      agent: blind.id,
      message: 'What is this?',
      image_urls: [files.url('/docs/photo.png')],
      streaming: true,
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ error_code: 'vision_not_supported' });
    expect(fake.requests.length).toBe(from);
  });

  it('sends images to a vision model as image parts', async () => {
    fake.setModel('fake-agent', {});
    const from = fake.requests.length;
    const response = await invoke({ agent: agent.id, message: 'What is this?', image_urls: [files.url('/docs/photo.png')] });
    expect(response.status).toBe(200);
    expect(requestsOf('fake-agent', from)[0].images).toEqual([expect.objectContaining({ url: files.url('/docs/photo.png') })]);
  });

  it('answers an unknown, malformed or deleted agent with 422 Agent not found', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const response = await invoke({ agent: id, message: 'hi' });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ error: 'Agent not found', error_code: 'resource_not_found' });
    }
    // Run once (the agent service keeps the agent in memory), then changed and deleted: the
    // next runs see the change at once, and the deleted agent is never run again.
    fake.setModel('fake-agent', {});
    const doomed = await createAgent({ name: 'Doomed', llm_model: 'fake-agent', instruction_prompt: 'Before.' });
    expect((await invoke({ agent: doomed.id, message: 'hi' })).status).toBe(200);
    const patched = await fetch(`${gateway}/v1/public/workspaces/${workspaceId}/agents/${doomed.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: { instruction_prompt: 'After.' } }),
    });
    expect(patched.status).toBe(200);
    // The change message left the agent service before its answer to the PATCH, on the same
    // NATS connection, so it is handled before this run arrives.
    const from = fake.requests.length;
    expect((await invoke({ agent: doomed.id, message: 'hi' })).status).toBe(200);
    expect((fake.requests.at(-1)?.body as { messages: Array<{ content: string }> }).messages[0].content).toBe('After.');
    expect(fake.requests.length - from).toBe(1);
    await fetch(`${gateway}/v1/public/workspaces/${workspaceId}/agents/${doomed.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    const response = await invoke({ agent: doomed.id, message: 'hi' });
    expect(response.status).toBe(422);
    expect(fake.requests.length - from).toBe(1);
  });

  it('ends a run at max_tool_calls with one more model call without tools, so it answers', async () => {
    const url = files.url(`/docs/${fixtures.txt.fileName}`);
    const call = { toolCalls: [{ name: 'read_file', arguments: { file_url: url } }] };
    fake.setModel('fake-agent-capped', { turns: [call, call, call, call], response: 'Final answer without tools.' });
    const from = fake.requests.length;
    const response = await invoke({ agent: capped.id, message: 'Keep reading', attachments: [url] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Invoked;
    expect(body.tool_calls).toHaveLength(2);
    expect(body.response).toBe('Final answer without tools.');
    const sent = requestsOf('fake-agent-capped', from).map((request) => (request.body as { tool_choice?: unknown }).tool_choice);
    expect(sent).toEqual(['auto', 'auto', 'none']);
  });

  it('streams reasoning and response fragments with done, tool events, then usage and [DONE]', async () => {
    const url = files.url(`/docs/${fixtures.csv.fileName}`);
    fake.setModel('fake-agent', {
      reasoning: 'Let me look.',
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { file_url: url } }] }, { response: 'The file lists widgets.' }],
    });
    const response = await invoke({ agent: agent.id, message: 'What is in it?', attachments: [url], streaming: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const raw = (await collectSse(response)) as Array<StreamEvent | string>;
    expect(raw.at(-1)).toBe('[DONE]');
    const events = raw.slice(0, -1) as StreamEvent[];
    const kinds = events.map((event) =>
      event.type === 'reasoning' || event.type === 'response' ? `${event.type}${event.done ? '!' : ''}` : event.type,
    );
    // Fragments of a kind, then its closing done fragment; the tool event between the turns; usage last.
    const compact = kinds.filter((kind, index) => kind !== kinds[index - 1]);
    expect(compact).toEqual(['reasoning', 'reasoning!', 'tool', 'reasoning', 'reasoning!', 'response', 'response!', 'usage']);
    const tool = events.find((event) => event.type === 'tool') as StreamEvent;
    expect(tool).toMatchObject({ tool: 'read_file', tool_type: 'system', tool_input: { file_url: url }, tool_id: expect.any(String) });
    expect(JSON.parse(tool.observation as string).content).toContain(fixtures.csv.expectedText);
    const text = events
      .filter((event) => event.type === 'response')
      .map((event) => event.response)
      .join('');
    expect(text).toBe('The file lists widgets.');
    expect(events.at(-1)).toMatchObject({ type: 'usage', usage: { total_tokens: expect.any(Number), duration: expect.any(Number) } });
  });

  it('answers a provider failure with 502 provider_error naming the provider, and one error event on a stream', async () => {
    const whole = await invoke({ agent: broken.id, message: 'hi' });
    expect(whole.status).toBe(502);
    const body = (await whole.json()) as { error_code: string; message: string };
    expect(body.error_code).toBe('provider_error');
    expect(body.message).toContain('Fake');
    const streamed = await invoke({ agent: broken.id, message: 'hi', streaming: true });
    const events = (await collectSse(streamed)) as StreamEvent[];
    expect(events).toEqual([expect.objectContaining({ type: 'error', error_code: 'provider_error', provider: 'fake' }), '[DONE]']);
  });

  it('cancels silently when the client disconnects mid-stream: provider call aborted, no failed run, no error event, charged what it used (estimated)', async () => {
    const from = fake.requests.length;
    const controller = new AbortController();
    const response = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent: slow.id, message: 'Talk for a while', streaming: true }),
      signal: controller.signal,
    });
    const reader = readSse(response);
    const first = JSON.parse((await reader.next()).value as string) as StreamEvent;
    expect(first).toMatchObject({ type: 'response', done: false });
    controller.abort();
    await expectEventually(() => expect(requestsOf('fake-agent-slow', from)[0]).toMatchObject({ aborted: true }));
    const requestId = first.request_id as string;
    // Usage governance: a stream cut short is charged for what it used, estimated when the provider's usage never came.
    await expectEventually(async () =>
      expect(await ledgerRow(requestId)).toMatchObject({
        status: 'cancelled',
        usage: { estimated: true, total_tokens: expect.any(Number) },
      }),
    );
  });

  it('runs a webhook trigger to a verified agent.completed callback, and a provider failure to agent.failed', async () => {
    const secretOf = async (id: string) =>
      (
        (await (
          await fetch(`${gateway}/v1/private/agents/${id}/webhook_secret`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { webhook_secret: { webhook_secret: string } }
      ).webhook_secret.webhook_secret;
    fake.setModel('fake-agent', {});
    const secret = await secretOf(agent.id);
    const accepted = await post(
      `/v1/agent/webhooks/${agent.id}`,
      { message: 'From a hook', thread_id: 'hook-thread', metadata: { source: 'crm' }, async: { callback_url: `${receiverUrl}/done` } },
      { 'x-service-webhook-secret': secret },
    );
    expect(accepted.status).toBe(202);
    const { request_id: requestId, run_status: runStatus } = (await accepted.json()) as { request_id: string; run_status: string };
    expect(runStatus).toBe('running');
    const callback = await expectEventually(
      () => {
        const found = receiver
          .on('/done')
          .find((candidate) => (JSON.parse(candidate.body) as { request_id: string }).request_id === requestId);
        expect(found).toBeDefined();
        return found as ReceivedCallback;
      },
      { timeoutMs: 20_000 },
    );
    expectSignedWith(callback, secret);
    expect(JSON.parse(callback.body)).toMatchObject({
      event_type: 'agent.completed',
      request_id: requestId,
      data: { response: 'Echo: From a hook', model: 'fake-agent' },
    });

    const brokenSecret = await secretOf(broken.id);
    const failing = await post(
      `/v1/agent/webhooks/${broken.id}?secret=${encodeURIComponent(brokenSecret)}`,
      { message: 'Will fail', async: { callback_url: `${receiverUrl}/failed` } },
      {},
    );
    expect(failing.status).toBe(202);
    const failedId = ((await failing.json()) as { request_id: string }).request_id;
    const failure = await expectEventually(
      () => {
        const found = receiver
          .on('/failed')
          .find((candidate) => (JSON.parse(candidate.body) as { request_id: string }).request_id === failedId);
        expect(found).toBeDefined();
        return found as ReceivedCallback;
      },
      { timeoutMs: 20_000 },
    );
    expectSignedWith(failure, brokenSecret);
    expect(JSON.parse(failure.body)).toMatchObject({
      event_type: 'agent.failed',
      data: { error_code: 'provider_error', error: expect.any(String) },
    });
  });

  it('completes a trigger accepted while the agent service is down once it is back', async () => {
    fake.setModel('fake-agent', {});
    const secret = (
      (await (
        await fetch(`${gateway}/v1/private/agents/${agent.id}/webhook_secret`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { webhook_secret: { webhook_secret: string } }
    ).webhook_secret.webhook_secret;
    const index = apps.findIndex((app) => app.app === 'agent');
    const down = apps[index];
    await down.stop();
    const accepted = await post(
      `/v1/agent/webhooks/${agent.id}`,
      { message: 'While you were out', async: { callback_url: `${receiverUrl}/later` } },
      { 'x-service-webhook-secret': secret },
    );
    expect(accepted.status).toBe(202);
    const { request_id: requestId } = (await accepted.json()) as { request_id: string };
    apps[index] = spawnApp('agent', down.port, down.env);
    await waitUntilLive(apps[index]);
    const callback = await expectEventually(
      () => {
        const found = receiver
          .on('/later')
          .find((candidate) => (JSON.parse(candidate.body) as { request_id: string }).request_id === requestId);
        expect(found).toBeDefined();
        return found as ReceivedCallback;
      },
      { timeoutMs: 30_000 },
    );
    expect(JSON.parse(callback.body)).toMatchObject({ event_type: 'agent.completed', data: { response: 'Echo: While you were out' } });
  });

  it('refuses a trigger without message or callback URL, naming both, and one with a wrong secret', async () => {
    const missing = await post(`/v1/agent/webhooks/${agent.id}`, {}, { 'x-service-webhook-secret': 'whsec_wrong' });
    expect(missing.status).toBe(401);
    const secret = (
      (await (
        await fetch(`${gateway}/v1/private/agents/${agent.id}/webhook_secret`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { webhook_secret: { webhook_secret: string } }
    ).webhook_secret.webhook_secret;
    const empty = await post(`/v1/agent/webhooks/${agent.id}`, {}, { 'x-service-webhook-secret': secret });
    expect(empty.status).toBe(422);
    expect(await empty.json()).toMatchObject({
      error_code: 'missing_required_field',
      details: [{ field: 'message' }, { field: 'async.callback_url' }],
    });
  });

  it("works with the official Node SDK's agent calls (the same requests, made with fetch)", async () => {
    fake.setModel('fake-agent', {});
    // FetchHive.invokeAgent: POST {baseURL}/agent/invoke with { ...params, streaming: false }, Bearer key.
    const sdkBody = {
      message: 'Hi from the SDK',
      agent: agent.id,
      thread_id: `sdk-${Date.now()}`,
      user: 'sdk-user',
      messages: [{ role: 'user', content: 'earlier', image_urls: [] }],
      image_urls: [],
    };
    const whole = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...sdkBody, streaming: false }),
    });
    expect(whole.ok).toBe(true);
    expect(await whole.json()).toMatchObject({
      request_id: expect.any(String),
      response: 'Echo: Hi from the SDK',
      thread_id: sdkBody.thread_id,
      model: 'fake-agent',
    });
    // FetchHive.invokeAgentStream: the same with streaming: true, parsed as SSE data lines.
    const streamed = await fetch(`${gateway}/v1/agent/invoke`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...sdkBody, streaming: true }),
    });
    expect(streamed.ok).toBe(true);
    const events = (await collectSse(streamed)) as StreamEvent[];
    expect(
      events
        .filter((event) => event.type === 'response')
        .map((event) => event.response)
        .join(''),
    ).toBe('Echo: Hi from the SDK');
    expect(events.at(-2)?.type).toBe('usage');
    expect(events.at(-1)).toBe('[DONE]');
  });
});

/** Both signatures of a callback, verified as a receiver would. */
function expectSignedWith(callback: ReceivedCallback, secret: string): void {
  const expected = `sha256=${createHmac('sha256', secret).update(callback.body).digest('hex')}`;
  expect(String(callback.headers['x-service-signature']).split(', ')).toContain(expected);
  const verified = new Webhook(secret).verify(callback.body, {
    'webhook-id': String(callback.headers['webhook-id']),
    'webhook-timestamp': String(callback.headers['webhook-timestamp']),
    'webhook-signature': String(callback.headers['webhook-signature']),
  });
  expect(verified).toEqual(JSON.parse(callback.body));
}
