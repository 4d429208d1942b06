import {
  applyDefinitions,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  sampleSum,
  scrapeMetrics,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';

const MODEL = 'fake-overload-held';
const PROMPTS = `
prompts:
  - deployment: held
    variants:
      - name: default
        model: ${MODEL}
        messages: [ { role: user, content: "{{ question }}" } ]
`;

/** What an overload refusal says, wherever it was decided (`details` names where and why). */
const overloaded = (details: Record<string, string>) => ({
  error: 'The service is overloaded and did not take the request. Retry shortly.',
  message: 'The service is overloaded and did not take the request. Retry shortly.',
  error_code: 'upstream_request_failed',
  code: 'upstream_request_failed',
  details,
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  reusedSocket: boolean;
}

/** One request on `agent` (a keep-alive agent of one socket shows whether the connection stayed usable). */
function send(url: string, agent: Agent, method: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, agent, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text, reusedSocket: outgoing.reusedSocket }),
      );
    });
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/**
 * Overload is shed, not queued (docs/reliability.md): the gateway with MAX_HTTP_IN_FLIGHT=3 and
 * invocation with MAX_RPC_IN_FLIGHT=2, the event-loop check off in both so that only the counts
 * decide, however busy the machine. Requests are held in flight where the test controls them:
 * runs on the fake provider (`hold`), and a request whose body the test has not finished
 * sending. Past each bound the next request is answered at once with the catalog's 503 and
 * `Retry-After`, while the probes still answer; once the held requests end, requests are taken again.
 */
describe('overload is shed, not queued', () => {
  const fake = new FakeProviderServer({});
  const apps: AppProcess[] = [];
  let gateway: string;
  let metricsPort: number;
  let invocation: AppProcess;
  let key: string;
  let partial: Socket | undefined;

  const invokeBody = (question: string, streaming = false) =>
    JSON.stringify({ deployment: 'held', variant: 'default', inputs: { question }, ...(streaming && { streaming: true }) });
  const invoke = (question: string, streaming = false) =>
    fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: invokeBody(question, streaming),
    });
  const reachedProvider = (question: string) => fake.waitForRequest((record) => JSON.stringify(record.body).includes(question), 30_000);
  const gatewayMetrics = () => scrapeMetrics(`http://127.0.0.1:${metricsPort}/metrics`);

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    metricsPort = await freePort();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    invocation = spawnApp('invocation', await freePort(), { ...env, MAX_RPC_IN_FLIGHT: '2', MAX_EVENT_LOOP_DELAY_MS: '0' });
    const gatewayApp = spawnApp('gateway', await freePort(), {
      ...env,
      MAX_HTTP_IN_FLIGHT: '3',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      METRICS_PORT: String(metricsPort),
    });
    apps.push(spawnApp('catalog', await freePort(), env), invocation, gatewayApp);
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    await loadCatalogWithFakeModels('2099.11.28', [fakeModel(MODEL, { reasoning: false })]);
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e overload',
      '--plan',
      'enterprise',
    ]);
    key = created.api_key;
    await applyDefinitions(PROMPTS, created.workspace_id);
  });

  afterAll(async () => {
    partial?.destroy();
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  it('refuses past each bound at once with 503 and Retry-After, answers the probes, and takes requests again once the held ones end', async () => {
    const release = fake.hold(MODEL);
    const [sync, stream] = [randomUUID(), randomUUID()];
    // A sync run and a stream, each in flight at the gateway and in invocation until released.
    const held = [invoke(sync), invoke(stream, true)];
    await Promise.all([reachedProvider(sync), reachedProvider(stream)]);

    // Invocation is at its bound (2): the gateway takes a third request and relays the service's refusal.
    const refusedByService = await invoke(randomUUID());
    expect(refusedByService.status).toBe(503);
    expect(refusedByService.headers.get('retry-after')).toBe('1');
    expect(await refusedByService.json()).toEqual(overloaded({ pattern: 'invocation.prompts.invoke', reason: 'in_flight' }));
    // Its health ping is never refused: the gateway still sees it up.
    const readyWhileServiceFull = await fetch(`${gateway}/health/ready`);
    expect(readyWhileServiceFull.status).toBe(200);
    expect(await readyWhileServiceFull.json()).toMatchObject({ services: { invocation: { status: 'up' } } });
    const invocationShed = await scrapeMetrics(`${invocation.baseUrl}/metrics`);
    expect(sampleSum(invocationShed, 'waggle_overload_shed_total', { intake: 'rpc', reason: 'in_flight' })).toBe(1);

    // A third request held at the gateway itself: its headers are in, its body is not.
    partial = connect(Number(new URL(gateway).port), '127.0.0.1');
    const body = invokeBody(randomUUID());
    partial.write(
      `POST /v1/prompt/invoke HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await expectEventually(async () => expect(sampleSum(await gatewayMetrics(), 'waggle_in_flight_requests', { intake: 'http' })).toBe(3));

    // The gateway is at its bound (3): a request with a body is refused unread (on either surface), and its keep-alive connection stays usable.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const refusedByGateway = await send(
      `${gateway}/v1/prompt/invoke`,
      agent,
      'POST',
      { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      invokeBody(randomUUID()),
    );
    expect(refusedByGateway.status).toBe(503);
    expect(refusedByGateway.headers['retry-after']).toBe('1');
    expect(refusedByGateway.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(refusedByGateway.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(JSON.parse(refusedByGateway.body)).toEqual(overloaded({ reason: 'in_flight' }));
    // On the OpenAI-compatible surface the same refusal is OpenAI's error object, with the headers its clients read.
    const refusedOpenAi = await send(
      `${gateway}/openai/v1/chat/completions`,
      agent,
      'POST',
      { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      JSON.stringify({ model: 'prompt/held/default', messages: [{ role: 'user', content: randomUUID() }] }),
    );
    expect(refusedOpenAi.status).toBe(503);
    expect(refusedOpenAi.headers['retry-after']).toBe('1');
    expect(refusedOpenAi.headers['x-should-retry']).toBe('true');
    expect(refusedOpenAi.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(JSON.parse(refusedOpenAi.body)).toEqual({
      error: { message: overloaded({}).message, type: 'server_error', param: null, code: 'upstream_request_failed' },
    });
    // The probes are served ahead of the gate: on the refused request's own connection, and on new ones.
    const live = await send(`${gateway}/health/live`, agent, 'GET');
    expect({ status: live.status, reusedSocket: live.reusedSocket }).toEqual({ status: 200, reusedSocket: true });
    expect((await fetch(`${gateway}/health/ready`)).status).toBe(200);
    agent.destroy();
    const shed = await gatewayMetrics();
    expect(sampleSum(shed, 'waggle_overload_shed_total', { intake: 'http', reason: 'in_flight' })).toBe(2);
    expect(sampleSum(shed, 'waggle_in_flight_requests', { intake: 'http' })).toBe(3);

    // Everything held ends: the runs answer, the half-sent request goes away.
    partial.destroy();
    release();
    const [syncAnswer, streamAnswer] = await Promise.all(held);
    expect(syncAnswer.status).toBe(200);
    expect(await syncAnswer.json()).toMatchObject({ response: expect.any(String) });
    expect(streamAnswer.status).toBe(200);
    expect((await collectSse(streamAnswer)).at(-1)).toBe('[DONE]');
    await expectEventually(async () => expect(sampleSum(await gatewayMetrics(), 'waggle_in_flight_requests', { intake: 'http' })).toBe(0));
    const taken = await invoke(randomUUID());
    expect(taken.status).toBe(200);
    expect(await taken.json()).toMatchObject({ response: expect.any(String) });
  });
});
