import {
  QueueNames,
  type AppliedDeployment,
  type CancelledRun,
  type PromptTriggerJob,
  type RequestListItem,
  type WorkflowStepRecordView,
} from '@waggle/contracts';
import {
  CallbackReceiver,
  cliJson,
  collectSse,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  TestHttpsServer,
  waitUntilLive,
  type AppProcess,
  type ReceivedCallback,
} from '@waggle/testing';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { TEST_REDIS_URL } from '../setup/test-env';

interface Workspace {
  id: string;
  key: string;
  prompts: AppliedDeployment[];
  workflowSecret: string;
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

const DEFINITIONS = `
prompts:
  - deployment: answer
    variants:
      - name: held
        model: fake-cancel-held
        messages: [ { role: user, content: "{{ question }}" } ]
      - name: quick
        model: fake-cancel-quick
        messages: [ { role: user, content: "{{ question }}" } ]
workflows:
  - deployment: three-steps
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ last.output }}"
        steps:
          - { id: first, type: prompt, model: fake-cancel-held, messages: [ { role: user, content: "first {{ topic }}" } ] }
          - { id: second, type: prompt, model: fake-cancel-quick, messages: [ { role: user, content: "second {{ topic }} {{ first.output }}" } ] }
          - { id: last, type: template, text: "{{ second.output }}" }
`;

/**
 * Run cancellation (decisions.md, run cancellation) through the whole stack: two gateways, two
 * invocation replicas and two agent replicas, so a run started through one gateway is cancelled
 * through the other and stopped by whichever replica holds it; the fake provider's records show
 * what reached the model and what was aborted, a callback receiver what was announced.
 */
describe('run cancellation', () => {
  const fake = new FakeProviderServer({});
  const receiver = new CallbackReceiver();
  let files: TestHttpsServer;
  const apps: AppProcess[] = [];
  /** The two invocation replicas; they log at info, so which one held a run and which one was asked to cancel it shows. */
  const invocations: AppProcess[] = [];
  let gatewayA: string;
  let gatewayB: string;
  let receiverUrl: string;
  let main: Workspace;
  let other: Workspace;
  let capped: Workspace;
  let queueConnection: Redis;
  let promptRuns: Queue<PromptTriggerJob>;

  const call = async <T = Record<string, unknown>>(
    gateway: string,
    who: Workspace,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer<T>> => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  const cancel = (gateway: string, who: Workspace, requestId: string) =>
    call<CancelledRun>(gateway, who, 'POST', `/v1/public/requests/${requestId}/cancel`);
  const lookup = (who: Workspace, requestId: string) => call(gatewayB, who, 'GET', `/v1/public/requests/${requestId}`);
  /** The one run of the workspace whose metadata `probe` is `value`, as the ledger lists it (through gateway B). */
  const runProbed = (who: Workspace, value: string) =>
    expectEventually(async () => {
      const listed = await call<{ requests: RequestListItem[] }>(
        gatewayB,
        who,
        'GET',
        `/v1/private/requests?metadata_key=probe&metadata_value=${value}`,
      );
      expect(listed.body.requests).toHaveLength(1);
      return listed.body.requests[0];
    });
  const sentToModel = (text: string) => fake.requests.filter((request) => JSON.stringify(request.body).includes(text));
  const callbacksFor = (requestId: string): ReceivedCallback[] =>
    receiver.on('/hooks').filter((callback) => (JSON.parse(callback.body) as { request_id: string }).request_id === requestId);
  const promptTrigger = (who: Workspace, variant: string, body: unknown) => {
    const deployment = who.prompts.find((candidate) => candidate.deployment === 'answer') as AppliedDeployment;
    const variantId = deployment.variants.find((candidate) => candidate.name === variant)?.variant_id as string;
    return fetch(`${gatewayA}/v1/prompt/webhooks/${deployment.prompt_endpoint_id}/variants/${variantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': deployment.webhook_secret },
      body: JSON.stringify(body),
    });
  };
  const verifiedCallback = (callback: ReceivedCallback, secret: string) =>
    new Webhook(secret).verify(callback.body, {
      'webhook-id': String(callback.headers['webhook-id']),
      'webhook-timestamp': String(callback.headers['webhook-timestamp']),
      'webhook-signature': String(callback.headers['webhook-signature']),
    });

  async function workspace(name: string, limits: string[] = []): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      name,
      '--plan',
      'enterprise',
    ]);
    if (limits.length > 0) await cliJson(['workspace', 'set-limits', created.workspace_id, ...limits]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-cancel-')), 'definitions.yaml');
    writeFileSync(file, DEFINITIONS);
    const applied = await cliJson<{ prompts: AppliedDeployment[]; workflows: Array<{ webhook_secret: string }> }>([
      'apply',
      '-f',
      file,
      '--workspace',
      created.workspace_id,
    ]);
    return {
      id: created.workspace_id,
      key: created.api_key,
      prompts: applied.prompts,
      workflowSecret: applied.workflows[0].webhook_secret,
    };
  }

  beforeAll(async () => {
    queueConnection = new Redis(TEST_REDIS_URL);
    promptRuns = new Queue<PromptTriggerJob>(QueueNames.promptRuns, { connection: queueConnection });
    files = await TestHttpsServer.start();
    files.hang('/docs/held.txt', { firstChunk: null });
    const fakeUrl = await fake.start();
    // Held until aborted: what a cancel must stop.
    fake.setModel('fake-cancel-held', { latencyMs: 120_000 });
    receiverUrl = await receiver.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    const agentEnv = { ...env, ATTACHMENT_URL_ALLOWLIST: '127.0.0.1', ATTACHMENT_EXTRA_CA_FILE: files.writeCaFile() };
    const gatewayEnv = { ...env, CALLBACK_URL_ALLOWLIST: '127.0.0.1' };
    const gateways = [spawnApp('gateway', await freePort(), gatewayEnv), spawnApp('gateway', await freePort(), gatewayEnv)];
    invocations.push(
      spawnApp('invocation', await freePort(), { ...env, LOG_LEVEL: 'info' }),
      spawnApp('invocation', await freePort(), { ...env, LOG_LEVEL: 'info' }),
    );
    apps.push(
      spawnApp('catalog', await freePort(), env),
      ...invocations,
      spawnApp('agent', await freePort(), agentEnv),
      spawnApp('agent', await freePort(), agentEnv),
      spawnApp('callback-dispatcher', await freePort(), { LOG_LEVEL: 'warn', CALLBACK_URL_ALLOWLIST: '127.0.0.1' }),
      ...gateways,
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    [gatewayA, gatewayB] = gateways.map((gateway) => gateway.baseUrl);
    await loadCatalogWithFakeModels('2099.11.24', [
      fakeModel('fake-cancel-held', { reasoning: false }),
      fakeModel('fake-cancel-quick', { reasoning: false }),
      fakeModel('fake-cancel-agent', { reasoning: false, tool_calling: true }),
    ]);
    main = await workspace('e2e cancellation');
    other = await workspace('e2e cancellation other');
    capped = await workspace('e2e cancellation capped', ['--workflow-concurrency', '1']);
  });

  afterAll(async () => {
    await promptRuns?.resume();
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await Promise.all([fake.stop(), receiver.stop(), files?.close()]);
    await promptRuns?.close();
    queueConnection?.disconnect();
  });

  it('stops a running sync prompt run: its provider call is aborted, its caller gets 409 run_cancelled, the ledger says cancelled', async () => {
    const probe = randomUUID();
    const invoked = call(gatewayA, main, 'POST', '/v1/prompt/invoke', {
      deployment: 'answer',
      variant: 'held',
      inputs: { question: `sync ${probe}` },
      metadata: { probe },
    });
    await fake.waitForRequest((request) => JSON.stringify(request.body).includes(probe));
    const run = await runProbed(main, probe);
    expect(run.status).toBe('running');

    const cancelled = await cancel(gatewayB, main, run.request_id);
    expect(cancelled).toEqual({ status: 200, body: { request_id: run.request_id, run_status: 'cancelled' } });
    const answer = await invoked;
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error_code: 'run_cancelled', code: 'run_cancelled', request_id: run.request_id });
    await expectEventually(() => expect(sentToModel(probe)).toEqual([expect.objectContaining({ aborted: true })]));
    await expectEventually(async () => {
      const record = await lookup(main, run.request_id);
      expect(record.body).toMatchObject({ status: 'cancelled', data: { reason: 'cancelled' }, ended_at: expect.any(String) });
    });
  });

  it('reaches a prompt run held by the other invocation replica: run through gateway A, cancelled through gateway B', async () => {
    /** The replica whose log has the line for the run: `run stopped by a cancel` (its holder) or `run cancel requested` (the one asked). */
    const replicaLogging = (text: string, requestId: string) =>
      expectEventually(() => {
        const found = invocations.findIndex((app) =>
          app
            .output()
            .split('\n')
            .some((line) => line.includes(text) && line.includes(requestId)),
        );
        expect(found).toBeGreaterThanOrEqual(0);
        return found;
      });
    // Which replica takes a request is NATS's choice (one queue group): runs are cancelled until one was held by the
    // replica not asked to cancel it (each try has even odds; every try, crossing or not, must stop its run).
    for (let attempt = 1; attempt <= 16; attempt += 1) {
      const probe = randomUUID();
      const invoked = call(gatewayA, main, 'POST', '/v1/prompt/invoke', {
        deployment: 'answer',
        variant: 'held',
        inputs: { question: `crossing ${probe}` },
        metadata: { probe },
      });
      await fake.waitForRequest((request) => JSON.stringify(request.body).includes(probe));
      const run = await runProbed(main, probe);
      expect(await cancel(gatewayB, main, run.request_id)).toEqual({
        status: 200,
        body: { request_id: run.request_id, run_status: 'cancelled' },
      });
      expect((await invoked).body).toMatchObject({ error_code: 'run_cancelled', request_id: run.request_id });
      await expectEventually(() => expect(sentToModel(probe)).toEqual([expect.objectContaining({ aborted: true })]));
      const holder = await replicaLogging('run stopped by a cancel', run.request_id);
      const asked = await replicaLogging('run cancel requested', run.request_id);
      if (holder !== asked) return;
    }
    throw new Error('no run was held by the replica not asked to cancel it in 16 tries');
  });

  it('reaches an agent run held by another process: a streamed run stops between tool calls, with no further model call', async () => {
    const probe = randomUUID();
    const held = files.url('/docs/held.txt');
    fake.setModel('fake-cancel-agent', {
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { file_url: held } }] },
        { toolCalls: [{ name: 'read_file', arguments: { file_url: held } }] },
      ],
      response: 'never reached',
    });
    const created = await call<{ agent: { id: string } }>(gatewayA, main, 'POST', `/v1/public/workspaces/${main.id}/agents`, {
      agent: { name: 'Canceller test agent', llm_model: 'fake-cancel-agent', model_type: 'llm' },
    });
    expect(created.status).toBe(200);
    const streamed = fetch(`${gatewayA}/v1/agent/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${main.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: created.body.agent.id,
        message: `read it ${probe}`,
        attachments: [held],
        streaming: true,
        metadata: { probe },
      }),
    }).then(async (response) => ({ status: response.status, events: await collectSse(response) }));
    // The first tool call is running (its file never answers): the run is between model turns.
    await files.waitForRequest('/docs/held.txt');
    expect(sentToModel(probe)).toHaveLength(1);
    const run = await runProbed(main, probe);

    expect(await cancel(gatewayB, main, run.request_id)).toEqual({
      status: 200,
      body: { request_id: run.request_id, run_status: 'cancelled' },
    });
    const { status, events } = await streamed;
    expect(status).toBe(200);
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.at(-2)).toMatchObject({ type: 'error', error_code: 'run_cancelled', status_code: 409, request_id: run.request_id });
    expect(events.filter((event) => (event as { type?: string }).type === 'tool')).toEqual([]);
    // The answer above came once the run had settled: no later model call can follow.
    expect(sentToModel(probe)).toHaveLength(1);
    await expectEventually(async () => {
      const record = await lookup(main, run.request_id);
      expect(record.body).toMatchObject({ status: 'cancelled', request_type: 'agent', data: { reason: 'cancelled' } });
    });
  });

  it('stops a workflow run: no further step starts, its model is called no more, and a signed workflow.cancelled callback arrives', async () => {
    const topic = `wf-${randomUUID()}`;
    const started = await call<{ request_id: string; run_status: string }>(gatewayA, main, 'POST', '/v1/workflow/invoke', {
      deployment: 'three-steps',
      variant: 'default',
      inputs: { topic },
      async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
    });
    expect(started.body.run_status).toBe('running');
    const requestId = started.body.request_id;
    await fake.waitForRequest((request) => JSON.stringify(request.body).includes(`first ${topic}`));

    expect(await cancel(gatewayB, main, requestId)).toEqual({ status: 200, body: { request_id: requestId, run_status: 'cancelled' } });
    const [callback] = await expectEventually(() => {
      const arrived = callbacksFor(requestId);
      expect(arrived).toHaveLength(1);
      return arrived;
    });
    expect(verifiedCallback(callback, main.workflowSecret)).toEqual({
      event_type: 'workflow.cancelled',
      request_id: requestId,
      data: { reason: 'cancelled' },
    });
    // Settled before its callback was queued: nothing of the run can still be running.
    expect(sentToModel(topic)).toEqual([expect.objectContaining({ aborted: true })]);
    const steps = await call<{ steps: WorkflowStepRecordView[] }>(gatewayB, main, 'GET', `/v1/private/workflow_runs/${requestId}/steps`);
    expect(steps.body.steps.map((step) => [step.step_id, step.status, step.error_code])).toEqual([['first', 'failed', 'run_cancelled']]);
    const view = await call<{ workflow_run: { run_status: string } }>(gatewayB, main, 'GET', `/v1/workflow_runs/${requestId}`);
    expect(view.body.workflow_run.run_status).toBe('cancelled');
    await expectEventually(async () => {
      const record = await lookup(main, requestId);
      expect(record.body).toMatchObject({ status: 'cancelled', request_type: 'workflow', data: { reason: 'cancelled' } });
    });
  });

  it('never starts a workflow run queued behind the concurrency cap: finished cancelled where it waits, announced workflow.cancelled', async () => {
    const topic = `queued-${randomUUID()}`;
    const invoke = (suffix: string) =>
      call<{ request_id: string; run_status: string }>(gatewayA, capped, 'POST', '/v1/workflow/invoke', {
        deployment: 'three-steps',
        variant: 'default',
        inputs: { topic: `${topic}-${suffix}` },
        async: { enabled: true, callback_url: `${receiverUrl}/hooks` },
      });
    const holding = await invoke('holding');
    expect(holding.body.run_status).toBe('running');
    await fake.waitForRequest((request) => JSON.stringify(request.body).includes(`${topic}-holding`));
    const waiting = await invoke('waiting');
    expect(waiting.body.run_status).toBe('queued');

    expect(await cancel(gatewayB, capped, waiting.body.request_id)).toEqual({
      status: 200,
      body: { request_id: waiting.body.request_id, run_status: 'cancelled' },
    });
    const [callback] = await expectEventually(() => {
      const arrived = callbacksFor(waiting.body.request_id);
      expect(arrived).toHaveLength(1);
      return arrived;
    });
    expect(verifiedCallback(callback, capped.workflowSecret)).toEqual({
      event_type: 'workflow.cancelled',
      request_id: waiting.body.request_id,
      data: { reason: 'cancelled' },
    });
    // The slot frees when the running one is cancelled too; the cancelled one is not started by it.
    expect((await cancel(gatewayA, capped, holding.body.request_id)).body.run_status).toBe('cancelled');
    await expectEventually(() => expect(callbacksFor(holding.body.request_id)).toHaveLength(1));
    expect(sentToModel(`${topic}-waiting`)).toEqual([]);
    const steps = await call<{ steps: unknown[] }>(gatewayB, capped, 'GET', `/v1/private/workflow_runs/${waiting.body.request_id}/steps`);
    expect(steps.body.steps).toEqual([]);
    await expectEventually(async () => {
      expect((await lookup(capped, waiting.body.request_id)).body).toMatchObject({ status: 'cancelled', data: { reason: 'cancelled' } });
    });
  });

  it('never starts a prompt trigger whose job still waits: its job is removed, the ledger says cancelled, prompt.cancelled arrives', async () => {
    const probe = randomUUID();
    await promptRuns.pause();
    try {
      const accepted = await promptTrigger(main, 'quick', {
        inputs: { question: `trigger ${probe}` },
        metadata: { probe },
        async: { callback_url: `${receiverUrl}/hooks` },
      });
      expect(accepted.status).toBe(202);
      const { request_id: requestId } = (await accepted.json()) as { request_id: string };
      expect(['waiting', 'paused']).toContain(await promptRuns.getJobState(requestId));

      expect(await cancel(gatewayB, main, requestId)).toEqual({ status: 200, body: { request_id: requestId, run_status: 'cancelled' } });
      expect(await promptRuns.getJob(requestId)).toBeUndefined();
      const [callback] = await expectEventually(() => {
        const arrived = callbacksFor(requestId);
        expect(arrived).toHaveLength(1);
        return arrived;
      });
      const secret = main.prompts.find((deployment) => deployment.deployment === 'answer')?.webhook_secret as string;
      expect(verifiedCallback(callback, secret)).toEqual({
        event_type: 'prompt.cancelled',
        request_id: requestId,
        data: { reason: 'cancelled' },
      });
      await expectEventually(async () => {
        expect((await lookup(main, requestId)).body).toMatchObject({ status: 'cancelled', data: { reason: 'cancelled' } });
      });
    } finally {
      await promptRuns.resume();
    }
    expect(sentToModel(probe)).toEqual([]);
  });

  it('changes nothing for a run already finished: 200 with its final status, the same record, no second callback', async () => {
    const probe = randomUUID();
    const accepted = await promptTrigger(main, 'quick', {
      inputs: { question: `finished ${probe}` },
      metadata: { probe },
      async: { callback_url: `${receiverUrl}/hooks` },
    });
    const { request_id: requestId } = (await accepted.json()) as { request_id: string };
    await expectEventually(() => expect(callbacksFor(requestId)).toHaveLength(1));
    const before = await expectEventually(async () => {
      const record = await lookup(main, requestId);
      expect(record.body.status).toBe('completed');
      return record.body;
    });

    expect(await cancel(gatewayB, main, requestId)).toEqual({ status: 200, body: { request_id: requestId, run_status: 'completed' } });
    expect(await cancel(gatewayA, main, requestId)).toEqual({ status: 200, body: { request_id: requestId, run_status: 'completed' } });
    expect((await lookup(main, requestId)).body).toEqual(before);
    // A cancel queues any callback it causes before it answers: the delivery log holds the one of the run.
    const deliveries = await call<{ deliveries: Array<{ event_type: string }> }>(
      gatewayB,
      main,
      'GET',
      `/v1/private/deliveries?request_id=${requestId}`,
    );
    expect(deliveries.body.deliveries.map((delivery) => delivery.event_type)).toEqual(['prompt.completed']);
    expect(callbacksFor(requestId)).toHaveLength(1);
  });

  it("answers another workspace's request id exactly like an unknown one, and like the lookup: 404 Request not found", async () => {
    const response = await call(gatewayA, main, 'POST', '/v1/prompt/invoke', {
      deployment: 'answer',
      variant: 'quick',
      inputs: { question: 'mine' },
    });
    expect(response.status).toBe(200);
    const mine = response.body.request_id as string;
    const foreign = await cancel(gatewayB, other, mine);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'Request not found', error_code: 'not_found' });
    expect(foreign.body).toEqual((await lookup(other, mine)).body);
    const unknown = await cancel(gatewayA, main, `req_${'0'.repeat(32)}`);
    expect(unknown).toEqual(foreign);
    // And the owner's run is untouched.
    await expectEventually(async () => expect((await lookup(main, mine)).body.status).toBe('completed'));
  });
});
