import { Logger } from '@nestjs/common';
import { DeadLetterPatterns, KnowledgeBasePatterns, QueueNames, type KnowledgeBaseItemRecord } from '@waggle/contracts';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  startServiceUnderTest,
  TestHttpsServer,
  waitUntilLive,
  type AppProcess,
  type ServiceUnderTest,
} from '@waggle/testing';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';

const EMBEDDER = 'fake-embedder-dead-letters';
const GUIDE = '# Heron guide\n\nHerons nest in colonies by the river. They hunt fish at dawn and dusk.\n';

/**
 * A queue job that fails on every attempt, end to end over the real parts: the knowledge-base
 * service started by its own bootstrap (BullMQ on Redis, PostgreSQL), the catalog service, the
 * fake provider's embeddings, and a document host on loopback that answers 503 until it is
 * mended. The ingestion is dead-lettered after its bounded attempts (a warning per retried
 * attempt, one error line), listed by `knowledge-base.dead-letters.list`, and a replay ingests
 * it exactly once.
 */
describe('knowledge-base ingestion: dead letters', () => {
  const workspaceId = randomUUID();
  const fake = new FakeProviderServer();
  let catalog: AppProcess;
  let service: ServiceUnderTest;
  let files: TestHttpsServer;
  let redis: Redis;
  let ingestQueue: Queue;
  let db: Client;

  const item = (id: string, knowledgeBaseId: string) =>
    service.send(KnowledgeBasePatterns.getItem, { workspace_id: workspaceId, knowledge_base_id: knowledgeBaseId, item_id: id });
  const listIngest = () => service.send(DeadLetterPatterns.list['knowledge-base'], { source: 'knowledge-base-ingest' });
  const replay = (id: string) => service.send(DeadLetterPatterns.replay['knowledge-base'], { source: 'knowledge-base-ingest', id });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    files = await TestHttpsServer.start();
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.12.9', [fakeModel(EMBEDDER, { model_type: 'embedding', reasoning: false })]);
    service = await startServiceUnderTest(bootstrap, {
      LOG_LEVEL: 'silent',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      KB_EMBEDDING_MODEL: EMBEDDER,
      KB_URL_ALLOWLIST: '127.0.0.1',
      KB_URL_EXTRA_CA_FILE: files.writeCaFile(),
      KB_INGEST_ATTEMPTS: '2',
      KB_INGEST_BACKOFF_MS: '50',
    });
    redis = new Redis(process.env.REDIS_URL as string, { maxRetriesPerRequest: null });
    ingestQueue = new Queue(QueueNames.knowledgeBaseIngest, { connection: redis });
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await service?.stop();
    await cliJson(['catalog', 'load', '--force']).catch(() => undefined);
    await catalog?.stop();
    await ingestQueue?.close();
    await redis?.quit();
    await db?.end();
    await files?.close();
    await fake.stop();
  });

  it('dead-letters an ingestion that fails on every attempt, lists it, and ingests it exactly once when replayed', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    const path = `/docs/${randomUUID()}/guide.md`;
    files.status(path, 503);
    const knowledgeBase = await service.send(KnowledgeBasePatterns.createKnowledgeBase, {
      workspace_id: workspaceId,
      knowledge_base: { name: 'Guides', search_type: 'full_text' },
    });
    const added = await service.send(KnowledgeBasePatterns.addItem, {
      workspace_id: workspaceId,
      knowledge_base_id: knowledgeBase.id,
      url: files.url(path),
    });

    // Both attempts fail (the host answers 503: not an outage of Waggle's own dependencies), then the job stays failed.
    await expectEventually(async () => expect(await ingestQueue.getJobState(added.id)).toBe('failed'), { timeoutMs: 20_000 });
    expect(files.requestsTo(path)).toHaveLength(2);
    expect(await item(added.id, knowledgeBase.id)).toMatchObject({
      run_status: 'failed',
      chunks_count: 0,
      error: expect.stringContaining('503'),
    });
    const linesAbout = (spy: jest.SpyInstance, message: string) =>
      spy.mock.calls
        .filter(([fields, text]) => text === message && (fields as { job_id?: string })?.job_id === added.id)
        .map(([fields]) => fields as unknown);
    await expectEventually(() =>
      expect(linesAbout(errors, 'knowledge-base-ingest job dead-lettered')).toEqual([
        { queue: 'knowledge-base-ingest', job_id: added.id, request_id: null, attempts: 2, runs: 2, error: expect.stringContaining('503') },
      ]),
    );
    expect(linesAbout(warnings, 'knowledge-base-ingest job attempt failed; it will be retried')).toEqual([
      {
        queue: 'knowledge-base-ingest',
        job_id: added.id,
        request_id: null,
        attempts: 1,
        runs: 1,
        max_attempts: 2,
        retry_in_ms: 50,
        error: expect.stringContaining('503'),
      },
    ]);

    const listed = await listIngest();
    expect(listed).toEqual([
      {
        source: 'knowledge-base-ingest',
        id: added.id,
        request_id: null,
        workspace_id: workspaceId,
        error: expect.stringContaining('503'),
        attempts: 2,
        dead_lettered_at: expect.any(String),
        payload: expect.any(String),
      },
    ]);
    expect(JSON.parse(listed[0]?.payload ?? '')).toEqual({
      workspace_id: workspaceId,
      knowledge_base_id: knowledgeBase.id,
      item_id: added.id,
    });
    // The whole service's list holds it too.
    expect(await service.send(DeadLetterPatterns.list['knowledge-base'], {})).toContainEqual(listed[0]);

    // The host is mended. Two replays at once: one runs the job again, the other finds no dead letter.
    files.serve(path, GUIDE, 'text/markdown');
    const replays = await Promise.allSettled([replay(added.id), replay(added.id)]);
    expect(
      replays.filter((result) => result.status === 'fulfilled').map((result) => (result as PromiseFulfilledResult<unknown>).value),
    ).toEqual([{ source: 'knowledge-base-ingest', id: added.id, outcome: 'requeued', error: null }]);
    expect(
      replays.filter((result) => result.status === 'rejected').map((result) => (result as PromiseRejectedResult).reason as unknown),
    ).toEqual([expect.objectContaining({ code: 'not_found' })]);

    await expectEventually(async () => expect(await ingestQueue.getJobState(added.id)).toBe('completed'), { timeoutMs: 20_000 });
    const done: KnowledgeBaseItemRecord = await item(added.id, knowledgeBase.id);
    expect(done).toMatchObject({ run_status: 'completed', error: null });
    expect(done.chunks_count).toBeGreaterThan(0);
    // Ingested once: fetched once more, and its chunks are there once.
    expect(files.requestsTo(path)).toHaveLength(3);
    const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM knowledge_base.chunks WHERE item_id = $1', [
      added.id,
    ]);
    expect(rows).toEqual([{ count: done.chunks_count }]);
    expect(await listIngest()).toEqual([]);
    await expect(replay(added.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
