import {
  KNOWLEDGE_BASE_ITEMS_PAGE,
  KnowledgeBasePatterns,
  QueueNames,
  send as sendTo,
  type ReplyPattern,
  type RpcRequest,
} from '@waggle/contracts';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { freePort, spawnApp, startServiceUnderTest, waitUntilLive, type AppProcess, type ServiceUnderTest, failure } from '@waggle/testing';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { lastValueFrom, toArray } from 'rxjs';
import { bootstrap } from '../src/bootstrap';

const KB_NOT_FOUND = { code: 'resource_not_found', status: 422, message: 'Knowledge base not found' };

/**
 * The knowledge-base service started in-process by its own bootstrap and called over NATS as
 * the gateway and the CLI call it, with the real catalog service answering its embedding-model
 * checks: knowledge bases scoped per workspace, their items queued for ingestion (job id = item
 * id), a delete that hides the knowledge base at once and queues its cleanup (job id = its id).
 */
describe('knowledge-base service over NATS: knowledge bases and items', () => {
  const workspace = randomUUID();
  const otherWorkspace = randomUUID();
  let catalog: AppProcess;
  let service: ServiceUnderTest;
  let redis: Redis;
  let database: Client;
  let ingestQueue: Queue;
  let cleanupQueue: Queue;

  const send = <P extends ReplyPattern>(pattern: P, payload: RpcRequest<P>) => service.send(pattern, payload);
  /** The item list's pages, as the gateway collects them. */
  const itemPages = (id: string, workspaceId = workspace) =>
    lastValueFrom(
      sendTo(
        service.rpc,
        KnowledgeBasePatterns.listItems,
        { workspace_id: workspaceId, knowledge_base_id: id },
        { timeoutMs: 10_000 },
      ).pipe(toArray()),
    );
  const listItems = async (id: string, workspaceId = workspace) => (await itemPages(id, workspaceId)).flat();
  const create = (fields: Record<string, unknown> = {}, workspaceId = workspace) =>
    send(KnowledgeBasePatterns.createKnowledgeBase, {
      workspace_id: workspaceId,
      knowledge_base: { name: 'Docs', ...fields } as RpcRequest<typeof KnowledgeBasePatterns.createKnowledgeBase>['knowledge_base'],
    });

  beforeAll(async () => {
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error', KB_EMBEDDING_MODEL: 'text-embedding-3-small' });
    redis = new Redis(process.env.REDIS_URL as string, { maxRetriesPerRequest: null });
    ingestQueue = new Queue(QueueNames.knowledgeBaseIngest, { connection: redis });
    cleanupQueue = new Queue(QueueNames.knowledgeBaseCleanup, { connection: redis });
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await service?.stop();
    await catalog?.stop();
    await ingestQueue?.close();
    await cleanupQueue?.close();
    await redis?.quit();
    await database?.end();
  });

  it('creates a knowledge base with the defaults and the operator embedding model, and reads it back', async () => {
    const created = await create();
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Docs',
      description: null,
      search_type: 'hybrid',
      search_score_threshold: 0.3,
      search_chunk_limit: 5,
      status: 'active',
      items_count: 0,
      items_by_status: { queued: 0, running: 0, completed: 0, failed: 0 },
      embedding_model: 'text-embedding-3-small',
      embedding_dimensions: null,
      created_at: expect.any(String),
      updated_at: created.created_at,
    });
    expect(await send(KnowledgeBasePatterns.getKnowledgeBase, { workspace_id: workspace, knowledge_base_id: created.id })).toEqual(created);
    expect(await create({ search_chunk_limit: '12' })).toMatchObject({ search_chunk_limit: 12 });
  });

  it("lists only the workspace's own knowledge bases, oldest first, and answers another workspace's 422", async () => {
    const mine = await create({ name: 'Mine' });
    const theirs = await create({ name: 'Theirs' }, otherWorkspace);
    const listed = await send(KnowledgeBasePatterns.listKnowledgeBases, { workspace_id: workspace });
    expect(listed.map((knowledgeBase) => knowledgeBase.id)).toContain(mine.id);
    expect(listed.map((knowledgeBase) => knowledgeBase.id)).not.toContain(theirs.id);
    const createdTimes = listed.map((knowledgeBase) => Date.parse(knowledgeBase.created_at));
    expect([...createdTimes].sort((x, y) => x - y)).toEqual(createdTimes);
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid']) {
      expect(await failure(send(KnowledgeBasePatterns.getKnowledgeBase, { workspace_id: workspace, knowledge_base_id: id }))).toMatchObject(
        KB_NOT_FOUND,
      );
      expect(
        await failure(
          send(KnowledgeBasePatterns.updateKnowledgeBase, {
            workspace_id: workspace,
            knowledge_base_id: id,
            knowledge_base: { name: 'x' },
          }),
        ),
      ).toMatchObject(KB_NOT_FOUND);
      expect(await failure(listItems(id))).toMatchObject(KB_NOT_FOUND);
      expect(
        await failure(send(KnowledgeBasePatterns.deleteKnowledgeBase, { workspace_id: workspace, knowledge_base_id: id })),
      ).toMatchObject(KB_NOT_FOUND);
    }
    expect(await send(KnowledgeBasePatterns.getKnowledgeBase, { workspace_id: otherWorkspace, knowledge_base_id: theirs.id })).toEqual(
      theirs,
    );
  });

  it('streams the item list in pages, so a knowledge base of thousands of items is listed whole (one NATS message holds 1 MiB)', async () => {
    const knowledgeBase = await create({ name: 'Many items' });
    expect(await itemPages(knowledgeBase.id)).toEqual([[]]);
    const count = 2 * KNOWLEDGE_BASE_ITEMS_PAGE + 37;
    await database.query(
      `INSERT INTO knowledge_base.knowledge_base_items (knowledge_base_id, workspace_id, name, item_type, source_url, run_status, status, created_at)
       SELECT $1, $2, 'document-' || n || '-' || repeat('x', 900) || '.txt', 'url', 'https://example.com/' || n, 'completed', 'active', now() + n * interval '1 millisecond'
         FROM generate_series(1, $3::int) AS n`,
      [knowledgeBase.id, workspace, count],
    );
    const pages = await itemPages(knowledgeBase.id);
    expect(pages.map((page) => page.length)).toEqual([KNOWLEDGE_BASE_ITEMS_PAGE, KNOWLEDGE_BASE_ITEMS_PAGE, 37]);
    const names = pages.flat().map((item) => item.name);
    expect(names[0]).toMatch(/^document-1-/);
    expect(names.at(-1)).toMatch(new RegExp(`^document-${count}-`));
    expect(new Set(pages.flat().map((item) => item.id)).size).toBe(count);
    expect(JSON.stringify(pages.flat()).length).toBeGreaterThan(1024 * 1024);
  });

  it('updates the named fields only', async () => {
    const knowledgeBase = await create({ name: 'Before', description: 'kept' });
    const updated = await send(KnowledgeBasePatterns.updateKnowledgeBase, {
      workspace_id: workspace,
      knowledge_base_id: knowledgeBase.id,
      knowledge_base: { name: 'After', search_type: 'vector' },
    });
    expect(updated).toEqual({ ...knowledgeBase, name: 'After', search_type: 'vector', updated_at: expect.any(String) });
  });

  it('records an added item queued and queues its ingestion under the item id', async () => {
    const knowledgeBase = await create({ name: 'With an item' });
    const item = await send(KnowledgeBasePatterns.addItem, {
      workspace_id: workspace,
      knowledge_base_id: knowledgeBase.id,
      url: 'https://docs.example.invalid/a/guide.md',
    });
    expect(item).toMatchObject({
      name: 'guide.md',
      knowledge_base_id: knowledgeBase.id,
      item_type: 'url',
      run_status: 'queued',
      status: 'active',
      error: null,
      chunks_count: 0,
    });
    const job = await ingestQueue.getJob(item.id);
    expect(job?.data).toEqual({ workspace_id: workspace, knowledge_base_id: knowledgeBase.id, item_id: item.id });
    const { rows } = await database.query<{ source_url: string; workspace_id: string }>(
      'SELECT source_url, workspace_id FROM knowledge_base.knowledge_base_items WHERE id = $1',
      [item.id],
    );
    expect(rows).toEqual([{ source_url: 'https://docs.example.invalid/a/guide.md', workspace_id: workspace }]);
    expect(
      await failure(
        send(KnowledgeBasePatterns.getItem, { workspace_id: otherWorkspace, knowledge_base_id: knowledgeBase.id, item_id: item.id }),
      ),
    ).toMatchObject(KB_NOT_FOUND);
  });

  it('hides a deleted knowledge base from every read at once and queues its cleanup under its id', async () => {
    const knowledgeBase = await create({ name: 'Doomed' });
    expect(await send(KnowledgeBasePatterns.deleteKnowledgeBase, { workspace_id: workspace, knowledge_base_id: knowledgeBase.id })).toEqual(
      { id: knowledgeBase.id },
    );
    expect(
      await failure(send(KnowledgeBasePatterns.getKnowledgeBase, { workspace_id: workspace, knowledge_base_id: knowledgeBase.id })),
    ).toMatchObject(KB_NOT_FOUND);
    expect(
      await failure(
        send(KnowledgeBasePatterns.addItem, {
          workspace_id: workspace,
          knowledge_base_id: knowledgeBase.id,
          url: 'https://docs.example.invalid/x',
        }),
      ),
    ).toMatchObject(KB_NOT_FOUND);
    expect(
      await failure(send(KnowledgeBasePatterns.deleteKnowledgeBase, { workspace_id: workspace, knowledge_base_id: knowledgeBase.id })),
    ).toMatchObject(KB_NOT_FOUND);
    expect(
      (await send(KnowledgeBasePatterns.listKnowledgeBases, { workspace_id: workspace })).some((listed) => listed.id === knowledgeBase.id),
    ).toBe(false);
    expect((await cleanupQueue.getJob(knowledgeBase.id))?.data).toEqual({ knowledge_base_id: knowledgeBase.id });
  });

  it('sets the workspace embedding model to an active catalog embedding model only', async () => {
    const setting = randomUUID();
    expect(await send(KnowledgeBasePatterns.getEmbeddingModel, { workspace_id: setting })).toEqual({
      embedding_model: 'text-embedding-3-small',
      source: 'default',
    });
    expect(
      await send(KnowledgeBasePatterns.setEmbeddingModel, { workspace_id: setting, embedding_model: 'text-embedding-3-large' }),
    ).toEqual({ embedding_model: 'text-embedding-3-large', source: 'workspace' });
    expect(await create({}, setting)).toMatchObject({ embedding_model: 'text-embedding-3-large' });
    for (const model of ['gpt-6-luna', 'no-such-model']) {
      expect(await failure(send(KnowledgeBasePatterns.setEmbeddingModel, { workspace_id: setting, embedding_model: model }))).toMatchObject(
        { code: 'validation_error', status: 422, message: expect.stringContaining(model) },
      );
    }
    expect(await send(KnowledgeBasePatterns.getEmbeddingModel, { workspace_id: setting })).toEqual({
      embedding_model: 'text-embedding-3-large',
      source: 'workspace',
    });
  });
});
