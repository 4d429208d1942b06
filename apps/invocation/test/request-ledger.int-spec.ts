import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InvocationPatterns, LedgerStream, send, type LedgerRecord, type ListRequestsRequest } from '@waggle/contracts';
import { loadConfig, NatsRpcClient, newRequestId, startServiceApp } from '@waggle/platform';
import { LedgerPublisher } from '@waggle/runs';
import { randomUUID } from 'node:crypto';
import { InvocationEnv } from '../src/config/invocation.env';
import { dataSourceOptions } from '../src/database/data-source';
import { LedgerModule } from '../src/ledger/ledger.module';
import { RequestsRepository } from '../src/ledger/requests.repository';

/**
 * The ledger's owner side over its real parts: records published to the JetStream stream (as
 * any service publishes them) are written by the consumer and answered over NATS.
 */
describe('the request ledger consumer', () => {
  const env = loadConfig(InvocationEnv, { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' });
  const workspaceId = randomUUID();
  const rpc = new NatsRpcClient(env, 'ledger-int-test');
  let app: INestApplication;
  let publisher: LedgerPublisher;

  const record = (overrides: Partial<LedgerRecord> = {}): LedgerRecord => ({
    request_id: newRequestId(),
    workspace_id: workspaceId,
    request_type: 'workflow',
    requestable_type: 'workflow_deployment',
    requestable_id: randomUUID(),
    deployment: 'nightly',
    variant: 'default',
    variant_id: null,
    version_id: null,
    version: 3,
    model: null,
    status: 'running',
    message: null,
    metadata: { batch: 7 },
    user: null,
    generated_at: new Date().toISOString(),
    started_at: new Date().toISOString(),
    ended_at: null,
    duration_ms: null,
    usage: null,
    data: null,
    ...overrides,
  });
  const publish = async (...records: LedgerRecord[]) => {
    for (const one of records) publisher.save(one);
    await publisher.flush();
    expect(publisher.pending).toBe(0);
  };
  const lookup = (requestId: string, workspace = workspaceId) =>
    send(rpc, InvocationPatterns.getRequest, { workspace_id: workspace, request_id: requestId }, { timeoutMs: 5_000 });

  beforeAll(async () => {
    await rpc.connect();
    // A publisher of its own, as another service's: nothing it sends is in the app's memory.
    publisher = new LedgerPublisher(rpc);
    app = await startServiceApp({
      service: 'invocation',
      env,
      // Redis: the ledger's consumer settles each ended run's cost there (usage governance).
      dependencies: ['postgres', 'nats', 'redis'],
      database: TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL)),
      imports: [LedgerModule],
    });
  });

  afterAll(async () => {
    await app?.close();
    await publisher.close();
    await rpc.close();
  });

  it("answers a run another service published, at once: a lookup that misses waits for the consumer's catch-up", async () => {
    const run = record({ status: 'completed', data: { output: 'done' } });
    await publish(run);
    await expect(lookup(run.request_id)).resolves.toMatchObject({
      request_id: run.request_id,
      request_type: 'workflow',
      status: 'completed',
      metadata: { batch: 7 },
      data: { output: 'done' },
    });
    // Another workspace's id is not found, whoever wrote it.
    await expect(lookup(run.request_id, randomUUID())).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps the latest state, and never moves a run out of a terminal state', async () => {
    const run = record();
    await publish(run);
    await publish({ ...run, status: 'failed', ended_at: new Date().toISOString(), data: { error: 'boom', error_code: 'provider_error' } });
    // A stale state arriving late (another replica's slow batch) changes nothing.
    await publish({ ...run, status: 'running', data: null });
    await expect(lookup(run.request_id)).resolves.toMatchObject({
      status: 'failed',
      data: { error: 'boom', error_code: 'provider_error' },
    });
  });

  it('stores text PostgreSQL cannot hold (U+0000) as U+FFFD instead of failing the batch', async () => {
    const run = record({ status: 'completed', message: 'a\u0000b', data: { response: 'x\u0000y' } });
    const neighbour = record({ status: 'completed' });
    await publish(run, neighbour);
    await expect(lookup(run.request_id)).resolves.toMatchObject({ message: 'a\uFFFDb', data: { response: 'x\uFFFDy' } });
    await expect(lookup(neighbour.request_id)).resolves.toMatchObject({ status: 'completed' });
  });

  it('sets aside a message that is not a batch of records and goes on with the next', async () => {
    const connection = rpc.connection();
    if (!connection) throw new Error('NATS is not connected');
    await connection.jetstream().publish(LedgerStream.subject, new TextEncoder().encode('not json'));
    const after = record({ status: 'completed' });
    await publish(after);
    await expect(lookup(after.request_id)).resolves.toMatchObject({ status: 'completed' });
  });

  it('answers the trace id of the request that started the run, kept over later states from other traces, null when none', async () => {
    const started = 'a'.repeat(32);
    const run = record({ trace_id: started });
    await publish(run);
    // A cancel is another request, with a trace of its own: its state does not replace the run's trace.
    await publish({ ...run, status: 'cancelled', ended_at: new Date().toISOString(), trace_id: 'b'.repeat(32) });
    await expect(lookup(run.request_id)).resolves.toMatchObject({ status: 'cancelled', trace_id: started });
    // Within one write too (two publishers' messages read together), the earliest state's trace stays.
    const batched = record({ trace_id: started });
    await app.get(RequestsRepository).upsert([batched, { ...batched, status: 'completed', trace_id: 'b'.repeat(32) }]);
    await expect(lookup(batched.request_id)).resolves.toMatchObject({ status: 'completed', trace_id: started });
    // Published outside any trace (and so for every record written before the column existed): null.
    const untraced = record({ status: 'completed' });
    await publish(untraced);
    await expect(lookup(untraced.request_id)).resolves.toMatchObject({ trace_id: null });
  });

  it('answers the surface that started the run (openai), kept over a later state published without it, null for the native routes', async () => {
    const run = record({ surface: 'openai' });
    await publish(run);
    // A cancel published by whatever holds the run does not know the surface: the stored one stays.
    await publish({ ...run, status: 'cancelled', ended_at: new Date().toISOString(), surface: null });
    await expect(lookup(run.request_id)).resolves.toMatchObject({ status: 'cancelled', surface: 'openai' });
    const native = record({ status: 'completed' });
    await publish(native);
    await expect(lookup(native.request_id)).resolves.toMatchObject({ status: 'completed', surface: null });
  });

  it("stores a run's cost, price version and credentials, and keeps the API key that started it over a later state without one", async () => {
    const apiKeyId = randomUUID();
    const run = record({ request_type: 'prompt', api_key_id: apiKeyId });
    await publish(run);
    await expect(lookup(run.request_id)).resolves.toMatchObject({ status: 'running', cost_micros: null, price_version: null });
    // A background run's worker has no request context, so its terminal record carries no key.
    const ended = { status: 'completed', ended_at: new Date().toISOString(), api_key_id: null } as const;
    const cost = { cost_micros: 9_007_199_254, price_version: '2026-11-21', credentials: 'hosted' } as const;
    await publish({ ...run, ...ended, ...cost });
    await expect(lookup(run.request_id)).resolves.toMatchObject({
      status: 'completed',
      cost_micros: 9_007_199_254,
      price_version: '2026-11-21',
    });
    const [listed] = await send(rpc, InvocationPatterns.listRequests, { workspace_id: workspaceId, limit: 1 }, { timeoutMs: 5_000 });
    expect(listed).toMatchObject({ request_id: run.request_id, ...cost, api_key_id: apiKeyId });
    // A run that called no model, or one recorded before costs: null all over.
    const free = record({ status: 'completed' });
    await publish(free);
    await expect(lookup(free.request_id)).resolves.toMatchObject({ cost_micros: null, price_version: null });
  });

  it("lists a workspace's runs by user label, with the label", async () => {
    const labelled = record({ status: 'completed', user: 'ops@example.com' });
    await publish(labelled, record({ status: 'completed', user: 'someone-else' }));
    const listed = await send(
      rpc,
      InvocationPatterns.listRequests,
      { workspace_id: workspaceId, user: 'ops@example.com' },
      { timeoutMs: 5_000 },
    );
    expect(listed).toEqual([expect.objectContaining({ request_id: labelled.request_id, user: 'ops@example.com' })]);
  });

  it("lists a workspace's runs by state and artifact, a page at a time after the last run of the page before", async () => {
    const workspace = randomUUID();
    const artifact = randomUUID();
    const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
    const runs = [0, 1, 2, 3, 4].map((second) =>
      record({ workspace_id: workspace, requestable_id: artifact, status: 'completed', generated_at: at(second) }),
    );
    const failed = record({ workspace_id: workspace, requestable_id: artifact, status: 'failed', generated_at: at(5) });
    const otherArtifact = record({ workspace_id: workspace, status: 'completed', generated_at: at(6) });
    await publish(...runs, failed, otherArtifact);
    const list = (query: Partial<ListRequestsRequest>) =>
      send(rpc, InvocationPatterns.listRequests, { workspace_id: workspace, ...query }, { timeoutMs: 5_000 });
    const ids = (items: Array<{ request_id: string }>) => items.map((item) => item.request_id);
    const newestFirst = ids([...runs].reverse());

    const first = await list({ status: 'completed', artifact, limit: 2 });
    expect(ids(first)).toEqual(newestFirst.slice(0, 2));
    const second = await list({ status: 'completed', artifact, limit: 2, before: first[1].request_id });
    expect(ids(second)).toEqual(newestFirst.slice(2, 4));
    const last = await list({ status: 'completed', artifact, limit: 2, before: second[1].request_id });
    expect(ids(last)).toEqual(newestFirst.slice(4));
    expect(ids(await list({ status: 'failed' }))).toEqual([failed.request_id]);
    expect(ids(await list({ artifact: otherArtifact.requestable_id }))).toEqual([otherArtifact.request_id]);
    // Another workspace's run as the cursor: no page, rather than that workspace's order.
    expect(await list({ before: (await lookupAny()).request_id })).toEqual([]);
  });

  /** A run of the suite's own workspace (not the one the paging case lists). */
  async function lookupAny(): Promise<{ request_id: string }> {
    const other = record();
    await publish(other);
    return other;
  }
});
