import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { InvocationPatterns, send, type EvaluatorSpec } from '@waggle/contracts';
import { loadConfig, NatsRpcClient, newRequestId, startServiceApp } from '@waggle/platform';
import { ProvidersModule } from '@waggle/providers';
import { RunLifecycleModule } from '@waggle/runs';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { InvocationEnv } from '../src/config/invocation.env';
import { dataSourceOptions } from '../src/database/data-source';
import { CellEvaluators, type CellOutcome, type EvaluationContext } from '../src/experiments/evaluators/cell-evaluators';
import { EvaluatorsModule } from '../src/experiments/evaluators/evaluators.module';
import { LedgerModule } from '../src/ledger/ledger.module';

const JUDGE = 'fake-judge-38';
const BROKEN_JUDGE = 'fake-judge-38-broken';
const HELD_JUDGE = 'fake-judge-38-held';
const RUBRIC = 'The answer must say that refunds take 14 days.';

/**
 * The evaluators over their real parts: the invocation service's provider layer and ledger
 * (started in-process with the evaluators' module), the catalog service, the fake provider as
 * the judge's model (answering by what it is shown), and the local embedding model for
 * `similarity` (its worker runs the built copy: `npm run build` first).
 */
describe('experiment evaluators: similarity on the local embedding model, and an llm judge with its own ledger record', () => {
  const fake = new FakeProviderServer();
  const workspaceId = randomUUID();
  const experimentRunId = randomUUID();
  const database = new Client({ connectionString: process.env.DATABASE_URL });
  let catalog: AppProcess;
  let app: INestApplication;
  let rpc: NatsRpcClient;
  let evaluators: CellEvaluators;

  const outcome = (text: string, expected: unknown): CellOutcome => ({
    output: text,
    text,
    expected_output: expected,
    latency_ms: 50,
    cost_micros: 10,
  });
  const context = (signal = new AbortController().signal): EvaluationContext => ({
    workspaceId,
    experimentRunId,
    cellRequestId: newRequestId(),
    signal,
  });
  /** The judge's record of a cell, as the ledger's owner stored it. */
  const judgeRecordOf = async (cellRequestId: string) => {
    const [listed] = await send(
      rpc,
      InvocationPatterns.listRequests,
      { workspace_id: workspaceId, metadata_key: 'judged_request_id', metadata_value: cellRequestId },
      { timeoutMs: 5_000 },
    );
    if (!listed || listed.status === 'running') throw new Error(`no finished judge record for ${cellRequestId} yet`);
    const { rows } = await database.query<{ model: string; usage: Record<string, unknown> | null; requestable_id: string }>(
      'SELECT "model", "usage", "requestable_id" FROM "invocation"."requests" WHERE "id" = $1',
      [listed.request_id],
    );
    return { ...listed, ...rows[0] };
  };

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.38.1', [
      fakeModel(JUDGE, { reasoning: false }),
      fakeModel(BROKEN_JUDGE, { reasoning: false }),
      fakeModel(HELD_JUDGE, { reasoning: false }),
      fakeModel('fake-embedder-38', { model_type: 'embedding', reasoning: false }),
    ]);
    // A judge that passes the output that says 14 days and fails any other, with fixed token counts.
    fake.setModel(JUDGE, {
      usage: { promptTokens: 100, completionTokens: 20 },
      json: {
        answer: 'valid',
        value: { score: 0.1, passed: false, reason: 'It does not say 14 days.' },
        cases: [{ when: '<output>\nRefunds take 14 days.', value: { score: 0.9, passed: true, reason: 'It says 14 days.' } }],
      },
    });
    fake.setModel(BROKEN_JUDGE, { error: { status: 400, message: 'bad request' } });
    fake.setModel(HELD_JUDGE, { json: { answer: 'valid' } });
    const env = loadConfig(InvocationEnv, {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      LOCAL_EMBEDDING_THREADS: '1',
    });
    app = await startServiceApp({
      service: 'invocation',
      env,
      dependencies: ['postgres', 'nats', 'redis'],
      database: TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL)),
      imports: [RunLifecycleModule, ProvidersModule.forRoot({ env, catalogTransport: NatsRpcClient }), LedgerModule, EvaluatorsModule],
    });
    evaluators = app.get(CellEvaluators);
    rpc = new NatsRpcClient(env, 'evaluators-int-test');
    await rpc.connect();
    await database.connect();
  });

  afterAll(async () => {
    await app?.close();
    await rpc?.close();
    await database.end();
    await cliJson(['catalog', 'load', '--force']).catch(() => undefined);
    await catalog?.stop();
    await fake.stop();
  });

  describe('check', () => {
    it('accepts a judge on a catalog chat model and similarity on the configured local embedding model', async () => {
      await expect(
        evaluators.check([
          { type: 'llm_judge', rubric: RUBRIC, model: JUDGE },
          { type: 'similarity', threshold: 0.5 },
        ]),
      ).resolves.toEqual([
        { type: 'llm_judge', name: 'llm_judge', rubric: RUBRIC, model: JUDGE },
        { type: 'similarity', name: 'similarity', threshold: 0.5 },
      ]);
    });

    it('refuses a judge on a model the catalog does not have, or on an embedding model, naming the field', async () => {
      const refused = await evaluators
        .check([
          { type: 'exact' },
          { type: 'llm_judge', name: 'unknown', rubric: RUBRIC, model: 'no-such-judge' },
          { type: 'llm_judge', name: 'embedder', rubric: RUBRIC, model: 'fake-embedder-38' },
        ])
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'validation_error',
        status: 422,
        message: 'Invalid evaluator evaluators[1].model: no-such-judge is not in the model catalog',
        details: [
          { field: 'evaluators[1].model', messages: [{ detail: 'evaluator_model_unknown', params: { model: 'no-such-judge' } }] },
          { field: 'evaluators[2].model', messages: [{ detail: 'evaluator_model_not_chat', params: { model: 'fake-embedder-38' } }] },
        ],
      });
    });
  });

  it('scores a close text above a far one by the cosine of their local embeddings', async () => {
    const specs: EvaluatorSpec[] = [{ type: 'similarity', name: 'similarity', threshold: 0.5 }];
    const expected = 'Refunds are paid back within 14 days.';
    const [close] = await evaluators.evaluate(specs, outcome('Your refund is paid back within fourteen days.', expected), context());
    const [far] = await evaluators.evaluate(specs, outcome('The office cat sleeps on the printer.', expected), context());
    expect(close).toEqual({
      evaluator: 'similarity',
      type: 'similarity',
      score: expect.any(Number),
      passed: true,
      reason: expect.any(String),
    });
    expect(far).toMatchObject({ evaluator: 'similarity', passed: false });
    expect(close.score).toBeGreaterThanOrEqual(0.5);
    expect(far.score).toBeLessThan(0.5);
    expect(close.score).toBeGreaterThan(far.score + 0.2);
    // The evaluator's own value is compared instead of the row's expected output.
    const [own] = await evaluators.evaluate(
      [{ type: 'similarity', name: 'similarity', threshold: 0.5, value: 'A cat is asleep on the office printer.' }],
      outcome('The office cat sleeps on the printer.', expected),
      context(),
    );
    expect(own.passed).toBe(true);
  });

  it('passes and fails by the judge, each judge call a ledger record of its own with its usage and cost', async () => {
    const specs: EvaluatorSpec[] = [{ type: 'llm_judge', name: 'judge', rubric: RUBRIC, model: JUDGE }];
    const good = context();
    const bad = context();
    const [passed] = await evaluators.evaluate(specs, outcome('Refunds take 14 days.', '14 days'), good);
    const [failed] = await evaluators.evaluate(specs, outcome('Refunds take a month.', '14 days'), bad);
    expect(passed).toEqual({ evaluator: 'judge', type: 'llm_judge', score: 0.9, passed: true, reason: 'It says 14 days.' });
    expect(failed).toEqual({ evaluator: 'judge', type: 'llm_judge', score: 0.1, passed: false, reason: 'It does not say 14 days.' });

    // The judge saw the rubric, the expected output and the output, at temperature 0.
    const judged = fake.requests.find((request) => request.model === JUDGE && request.lastUserText.includes('Refunds take a month.'));
    expect(judged?.lastUserText).toContain(`Rubric:\n${RUBRIC}`);
    expect(judged?.lastUserText).toContain('<expected_output>\n14 days\n</expected_output>');
    expect(judged?.body).toMatchObject({ temperature: 0 });

    for (const cell of [good, bad]) {
      const record = await expectEventually(() => judgeRecordOf(cell.cellRequestId));
      // 100 prompt tokens at 1 micro-USD, 20 completion tokens at 4 (the fake models' price).
      expect(record).toMatchObject({
        request_id: expect.not.stringMatching(cell.cellRequestId),
        status: 'completed',
        request_type: 'prompt',
        requestable_type: 'experiment_judge',
        requestable_id: experimentRunId,
        metadata: { experiment_run_id: experimentRunId, judged_request_id: cell.cellRequestId },
        cost_micros: 180,
        price_version: 'fake-1',
        credentials: 'hosted',
        model: JUDGE,
        usage: expect.objectContaining({ total_tokens: 120 }),
      });
      // Another workspace does not see it.
      await expect(
        send(rpc, InvocationPatterns.getRequest, { workspace_id: randomUUID(), request_id: record.request_id }, { timeoutMs: 5_000 }),
      ).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it("gives a failing judge call as the evaluator's result (its catalog code), and records the call failed", async () => {
    const cell = context();
    const results = await evaluators.evaluate(
      [
        { type: 'llm_judge', name: 'judge', rubric: RUBRIC, model: BROKEN_JUDGE },
        { type: 'contains', name: 'contains', value: '14 days' },
      ],
      outcome('Refunds take 14 days.', null),
      cell,
    );
    expect(results).toEqual([
      { evaluator: 'judge', type: 'llm_judge', score: 0, passed: false, reason: 'judge failed: provider_error' },
      { evaluator: 'contains', type: 'contains', score: 1, passed: true, reason: 'contains "14 days"' },
    ]);
    const record = await expectEventually(() => judgeRecordOf(cell.cellRequestId));
    expect(record).toMatchObject({ status: 'failed', requestable_type: 'experiment_judge', data: { error_code: 'provider_error' } });
  });

  it('rejects with the reason when the evaluation is aborted during the judge call, and records the call cancelled', async () => {
    const release = fake.hold(HELD_JUDGE);
    const controller = new AbortController();
    const cell = context(controller.signal);
    const evaluation = evaluators
      .evaluate([{ type: 'llm_judge', name: 'judge', rubric: RUBRIC, model: HELD_JUDGE }], outcome('x', 'y'), cell)
      .catch((error: unknown) => error);
    await fake.waitForRequest((request) => request.model === HELD_JUDGE, 10_000);
    controller.abort(new Error('run cancelled'));
    expect(await evaluation).toEqual(new Error('run cancelled'));
    release();
    const record = await expectEventually(() => judgeRecordOf(cell.cellRequestId));
    expect(record).toMatchObject({ status: 'cancelled', requestable_type: 'experiment_judge' });
  });
});
