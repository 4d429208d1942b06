import type { KnowledgeBaseItemRecord, KnowledgeBaseRecord, KnowledgeBaseSearchResponse } from '@waggle/contracts';
import {
  buildFixtureDocuments,
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  TestHttpsServer,
  waitUntilLive,
  type AppProcess,
  type FixtureDocument,
  type FixtureDocumentType,
} from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { TEST_DATABASE_URL } from '../setup/test-env';

interface Workspace {
  id: string;
  key: string;
}

const DOCUMENT_TYPES: FixtureDocumentType[] = ['pdf', 'docx', 'csv', 'xlsx', 'txt', 'md', 'html'];
const FAKE_EMBEDDER = 'fake-embedder';
const BROKEN_EMBEDDER = 'fake-embedder-broken';
const LOCAL_MODEL = 'universal-sentence-encoder-lite';
const KB_NOT_FOUND = {
  error: 'Knowledge base not found',
  message: 'Knowledge base not found',
  error_code: 'resource_not_found',
  code: 'resource_not_found',
};
const INGESTION_TIMEOUT_MS = 120_000;

/** A long plain-text document: many small chunks at KB_CHUNK_TOKENS 64, for the cleanup tests. */
const LONG_TEXT = Array.from(
  { length: 80 },
  (_, index) =>
    `Section ${index}. The archive keeps record ${index} about migrating herons and their river nests, noted in ledger ${index * 7}.`,
).join('\n\n');

/**
 * Ingestion and search through the gateway, as a client and an operator do it: documents of
 * every type served over https by a local server with its own CA (allowlisted by
 * configuration), added through the private route, parsed, chunked, embedded (the fake
 * provider's /v1/embeddings, and the local model once) and indexed, then searched; broken
 * documents failing with their error; a deleted knowledge base cleaned up, even when the
 * service is killed part-way.
 */
describe('knowledge bases: ingestion, search and cleanup', () => {
  const fake = new FakeProviderServer();
  const apps: AppProcess[] = [];
  let knowledgeBaseApp: AppProcess;
  let kbEnv: Record<string, string>;
  let gateway: string;
  let files: TestHttpsServer;
  let fixtures: Record<FixtureDocumentType, FixtureDocument>;
  let a: Workspace;
  let b: Workspace;
  let db: Client;

  async function call<T = Record<string, unknown>>(
    who: Workspace,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }
  const kbPath = (workspace: Workspace, id = '') => `/v1/public/workspaces/${workspace.id}/knowledge_bases${id ? `/${id}` : ''}`;
  async function createKb(workspace: Workspace, fields: Record<string, unknown> = {}): Promise<KnowledgeBaseRecord> {
    const answer = await call<{ knowledge_base: KnowledgeBaseRecord }>(workspace, 'POST', kbPath(workspace), {
      knowledge_base: { name: 'Ingested', ...fields },
    });
    expect(answer.status).toBe(200);
    return answer.body.knowledge_base;
  }
  async function addUrl(workspace: Workspace, knowledgeBaseId: string, url: string, name?: string): Promise<KnowledgeBaseItemRecord> {
    const answer = await call<{ knowledge_base_item: KnowledgeBaseItemRecord }>(
      workspace,
      'POST',
      `/v1/private/knowledge_bases/${knowledgeBaseId}/items`,
      { url, ...(name && { name }) },
    );
    expect(answer.status).toBe(200);
    return answer.body.knowledge_base_item;
  }
  const items = async (workspace: Workspace, knowledgeBaseId: string) =>
    (await call<{ knowledge_base_items: KnowledgeBaseItemRecord[] }>(workspace, 'GET', `${kbPath(workspace, knowledgeBaseId)}/items`)).body
      .knowledge_base_items;
  /** Waits until no item of the knowledge base is queued or running, and answers them. */
  async function settled(workspace: Workspace, knowledgeBaseId: string): Promise<KnowledgeBaseItemRecord[]> {
    let found: KnowledgeBaseItemRecord[] = [];
    await expectEventually(
      async () => {
        found = await items(workspace, knowledgeBaseId);
        expect(found.filter((item) => item.run_status === 'queued' || item.run_status === 'running')).toEqual([]);
      },
      { timeoutMs: INGESTION_TIMEOUT_MS, intervalMs: 100 },
    );
    return found;
  }
  const search = (workspace: Workspace, knowledgeBaseId: string, body: Record<string, unknown>) =>
    call<{ message: string; response: KnowledgeBaseSearchResponse }>(workspace, 'POST', `${kbPath(workspace, knowledgeBaseId)}/search`, {
      search_type: 'hybrid',
      search_chunk_limit: 20,
      search_score_threshold: 0,
      ...body,
    });
  /** Rows of one knowledge base still in the service's tables. */
  async function leftovers(knowledgeBaseId: string): Promise<{ knowledge_bases: number; items: number; chunks: number }> {
    const count = async (sql: string) => Number((await db.query<{ count: string }>(sql, [knowledgeBaseId])).rows[0].count);
    return {
      knowledge_bases: await count('SELECT count(*) FROM knowledge_base.knowledge_bases WHERE id = $1'),
      items: await count('SELECT count(*) FROM knowledge_base.knowledge_base_items WHERE knowledge_base_id = $1'),
      chunks: await count('SELECT count(*) FROM knowledge_base.chunks WHERE knowledge_base_id = $1'),
    };
  }
  const chunkCount = async (knowledgeBaseId: string) => (await leftovers(knowledgeBaseId)).chunks;

  beforeAll(async () => {
    fixtures = await buildFixtureDocuments();
    files = await TestHttpsServer.start();
    for (const type of DOCUMENT_TYPES) files.serve(`/docs/${fixtures[type].fileName}`, fixtures[type].bytes, fixtures[type].contentType);
    files.serve('/docs/broken.pdf', Buffer.from('%PDF-1.7\n this is no PDF at all'), 'application/pdf');
    files.serve('/docs/empty.txt', Buffer.from('   \n\n  '), 'text/plain');
    files.serve(
      '/docs/tool.exe',
      Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00]),
      'application/octet-stream',
    );
    files.serve('/docs/long.txt', Buffer.from(LONG_TEXT), 'text/plain');
    files.serve('/docs/long-2.txt', Buffer.from(LONG_TEXT.replace(/herons/g, 'otters')), 'text/plain');
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    const catalog = spawnApp('catalog', await freePort(), env);
    apps.push(catalog);
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.12.1', [
      fakeModel(FAKE_EMBEDDER, { model_type: 'embedding', reasoning: false }),
      fakeModel(BROKEN_EMBEDDER, { model_type: 'embedding', reasoning: false }),
    ]);
    fake.setModel(BROKEN_EMBEDDER, { error: { status: 500, message: 'embedder exploded' } });
    kbEnv = {
      ...env,
      KB_EMBEDDING_MODEL: FAKE_EMBEDDER,
      KB_URL_ALLOWLIST: '127.0.0.1',
      KB_URL_EXTRA_CA_FILE: files.writeCaFile(),
      KB_JOB_LOCK_MS: '2000',
      KB_CLEANUP_BATCH_SIZE: '5',
      KB_CHUNK_TOKENS: '64',
      KB_CHUNK_OVERLAP_TOKENS: '8',
      KB_INGEST_ATTEMPTS: '3',
      KB_INGEST_BACKOFF_MS: '50',
    };
    knowledgeBaseApp = spawnApp('knowledge-base', await freePort(), kbEnv);
    const assetApp = spawnApp('asset', await freePort(), {
      ...env,
      ASSET_STORAGE_DRIVER: 'filesystem',
      ASSET_STORAGE_DIR: mkdtempSync(join(tmpdir(), 'waggle-kb-assets-')),
    });
    apps.push(assetApp);
    await waitUntilLive(assetApp);
    const gatewayApp = spawnApp('gateway', await freePort(), env);
    apps.push(gatewayApp);
    await Promise.all([waitUntilLive(knowledgeBaseApp), waitUntilLive(gatewayApp)]);
    gateway = gatewayApp.baseUrl;
    const workspace = async (name: string) => {
      const made = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name]);
      return { id: made.workspace_id, key: made.api_key };
    };
    [a, b] = [await workspace('e2e kb ingestion A'), await workspace('e2e kb ingestion B')];
    db = new Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']).catch(() => undefined);
    await knowledgeBaseApp?.stop();
    await Promise.all(apps.map((app) => app.stop()));
    await files?.close();
    await fake.stop();
    await db?.end();
  });

  describe('ingestion', () => {
    let knowledgeBase: KnowledgeBaseRecord;
    const itemOf = new Map<FixtureDocumentType, KnowledgeBaseItemRecord>();

    beforeAll(async () => {
      knowledgeBase = await createKb(a, { name: 'Every type' });
      for (const type of DOCUMENT_TYPES) itemOf.set(type, await addUrl(a, knowledgeBase.id, files.url(`/docs/${fixtures[type].fileName}`)));
    });

    it('ingests a document of each type (PDF, DOCX, CSV, XLSX, TXT, MD, HTML) to completed, with chunks, and records the vector length', async () => {
      const done = await settled(a, knowledgeBase.id);
      expect(done.map((item) => ({ name: item.name, run_status: item.run_status, error: item.error }))).toEqual(
        DOCUMENT_TYPES.map((type) => ({ name: fixtures[type].fileName, run_status: 'completed', error: null })),
      );
      for (const item of done) expect(item.chunks_count).toBeGreaterThan(0);
      const record = (await call<{ knowledge_base: KnowledgeBaseRecord }>(a, 'GET', kbPath(a, knowledgeBase.id))).body.knowledge_base;
      expect(record).toMatchObject({
        items_count: DOCUMENT_TYPES.length,
        items_by_status: { queued: 0, running: 0, completed: DOCUMENT_TYPES.length, failed: 0 },
        embedding_model: FAKE_EMBEDDER,
      });
      expect(record.embedding_dimensions).toEqual(expect.any(Number));
      const shown = await call<{ knowledge_base_item: KnowledgeBaseItemRecord }>(
        a,
        'GET',
        `/v1/private/knowledge_bases/${knowledgeBase.id}/items/${itemOf.get('pdf')?.id}`,
      );
      expect(shown.body.knowledge_base_item).toMatchObject({ run_status: 'completed', error: null });
    });

    it.each(DOCUMENT_TYPES)('finds the text of the %s document by full-text search, its item named, best first', async (type) => {
      await settled(a, knowledgeBase.id);
      const answer = await search(a, knowledgeBase.id, {
        search_query: fixtures[type].expectedText,
        search_type: 'full_text',
        search_chunk_limit: 3,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.message).toBe('Search completed successfully');
      expect(answer.body.response).toMatchObject({ search_query: fixtures[type].expectedText, search_type: 'full_text' });
      const [best] = answer.body.response.chunks;
      expect(best).toMatchObject({
        knowledge_base_item_id: itemOf.get(type)?.id,
        item_name: fixtures[type].fileName,
        scores: { full_text: expect.any(Number), vector: null },
      });
      expect(best.content).toContain(fixtures[type].expectedText);
    });

    it('answers every search type within the bounds: at most the limit, best first, scores in [0, 1] and at least the threshold', async () => {
      await settled(a, knowledgeBase.id);
      for (const searchType of ['hybrid', 'vector', 'full_text'] as const) {
        for (const [limit, threshold] of [
          [1, 0],
          [4, 0],
          [20, 0],
          [20, 0.5],
          [20, 1],
        ] as const) {
          const answer = await search(a, knowledgeBase.id, {
            search_query: 'Zephyr Widgets lighthouse keeper',
            search_type: searchType,
            search_chunk_limit: limit,
            search_score_threshold: threshold,
          });
          expect(answer.status).toBe(200);
          const chunks = answer.body.response.chunks;
          expect(chunks.length).toBeLessThanOrEqual(limit);
          if (threshold === 0) expect(chunks.length).toBeGreaterThan(0);
          chunks.forEach((chunk, index) => {
            expect(chunk.score).toBeGreaterThanOrEqual(threshold);
            expect(chunk.score).toBeLessThanOrEqual(1);
            if (index > 0) expect(chunk.score).toBeLessThanOrEqual(chunks[index - 1].score);
          });
        }
      }
    });

    it("never searches another workspace's knowledge base, nor an unknown one", async () => {
      expect(
        await call(b, 'POST', `${kbPath(b, knowledgeBase.id)}/search`, {
          search_query: 'Zephyr',
          search_type: 'hybrid',
          search_chunk_limit: 5,
          search_score_threshold: 0,
        }),
      ).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(
        await call(a, 'POST', `${kbPath(a, randomUUID())}/search`, {
          search_query: 'Zephyr',
          search_type: 'hybrid',
          search_chunk_limit: 5,
          search_score_threshold: 0,
        }),
      ).toEqual({ status: 422, body: KB_NOT_FOUND });
      const theirs = await createKb(b, { name: 'B only' });
      const theirItem = await addUrl(b, theirs.id, files.url(`/docs/${fixtures.md.fileName}`));
      await settled(b, theirs.id);
      const ofA = await search(a, knowledgeBase.id, { search_query: fixtures.md.expectedText, search_type: 'hybrid' });
      expect(ofA.body.response.chunks.length).toBeGreaterThan(0);
      expect(ofA.body.response.chunks.some((chunk) => chunk.knowledge_base_item_id === theirItem.id)).toBe(false);
      const ofB = await search(b, theirs.id, { search_query: fixtures.md.expectedText, search_type: 'hybrid' });
      expect(ofB.body.response.chunks.map((chunk) => chunk.knowledge_base_item_id)).toEqual(
        ofB.body.response.chunks.map(() => theirItem.id),
      );
    });

    it('fails a broken, empty, unsupported or missing document with its error, at once', async () => {
      const broken = await createKb(a, { name: 'Broken documents' });
      const added = {
        pdf: await addUrl(a, broken.id, files.url('/docs/broken.pdf')),
        empty: await addUrl(a, broken.id, files.url('/docs/empty.txt')),
        exe: await addUrl(a, broken.id, files.url('/docs/tool.exe')),
        missing: await addUrl(a, broken.id, files.url('/docs/missing.md')),
      };
      const done = new Map((await settled(a, broken.id)).map((item) => [item.id, item]));
      expect(done.get(added.pdf.id)).toMatchObject({
        run_status: 'failed',
        chunks_count: 0,
        error: expect.stringMatching(/^The document could not be read/),
      });
      expect(done.get(added.empty.id)).toMatchObject({ run_status: 'failed', error: 'The document has no text to index' });
      expect(done.get(added.exe.id)).toMatchObject({ run_status: 'failed', error: expect.stringMatching(/unsupported file type/) });
      expect(done.get(added.missing.id)).toMatchObject({
        run_status: 'failed',
        error: expect.stringMatching(/^The document could not be fetched.*404/),
      });
      const record = (await call<{ knowledge_base: KnowledgeBaseRecord }>(a, 'GET', kbPath(a, broken.id))).body.knowledge_base;
      expect(record).toMatchObject({ items_by_status: { queued: 0, running: 0, completed: 0, failed: 4 }, embedding_dimensions: null });
    });

    it('retries an item whose embedding provider is down, then fails it with the error after the last attempt', async () => {
      const setModel = (model: string) => call(a, 'PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: model });
      expect((await setModel(BROKEN_EMBEDDER)).status).toBe(200);
      const down = await createKb(a, { name: 'Provider down' });
      expect((await setModel(FAKE_EMBEDDER)).status).toBe(200);
      expect(down.embedding_model).toBe(BROKEN_EMBEDDER);
      const from = fake.requests.length;
      const item = await addUrl(a, down.id, files.url(`/docs/${fixtures.md.fileName}`));
      const [done] = await settled(a, down.id);
      expect(done).toMatchObject({ id: item.id, run_status: 'failed', chunks_count: 0, error: expect.any(String) });
      expect(done.error).not.toBe('');
      expect(fake.requests.slice(from).filter((request) => request.model === BROKEN_EMBEDDER).length).toBe(3);
      const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM knowledge_base.knowledge_base_items WHERE id = $1', [
        item.id,
      ]);
      expect(rows).toEqual([{ attempts: 3 }]);
      expect(await chunkCount(down.id)).toBe(0);
    });

    it("ingests a document uploaded as an asset (private route and CLI), and refuses another workspace's asset", async () => {
      const fromAssets = await createKb(a, { name: 'From assets' });
      const upload = async (document: FixtureDocument) => {
        const form = new FormData();
        form.append('file', new Blob([document.bytes], { type: document.contentType }), document.fileName);
        const response = await fetch(`${gateway}/v1/public/workspaces/${a.id}/assets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${a.key}` },
          body: form,
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { asset: { id: string } }).asset;
      };
      const docx = await upload(fixtures.docx);
      const byRoute = await call<{ knowledge_base_item: KnowledgeBaseItemRecord }>(
        a,
        'POST',
        `/v1/private/knowledge_bases/${fromAssets.id}/items`,
        { asset_id: docx.id },
      );
      expect(byRoute).toMatchObject({
        status: 200,
        body: { knowledge_base_item: { item_type: 'asset', name: fixtures.docx.fileName, run_status: 'queued' } },
      });
      const xlsx = await upload(fixtures.xlsx);
      const byCli = await cliJson<KnowledgeBaseItemRecord>([
        'kb',
        'item',
        'add',
        a.id,
        fromAssets.id,
        '--asset',
        xlsx.id,
        '--name',
        'Sheet',
      ]);
      expect(byCli).toMatchObject({ item_type: 'asset', name: 'Sheet' });
      const done = await settled(a, fromAssets.id);
      expect(done.map((item) => [item.id, item.run_status, item.error])).toEqual([
        [byRoute.body.knowledge_base_item.id, 'completed', null],
        [byCli.id, 'completed', null],
      ]);
      for (const [document, item] of [
        [fixtures.docx, byRoute.body.knowledge_base_item.id],
        [fixtures.xlsx, byCli.id],
      ] as const) {
        const answer = await search(a, fromAssets.id, {
          search_query: document.expectedText,
          search_type: 'full_text',
          search_chunk_limit: 1,
        });
        expect(answer.body.response.chunks).toEqual([
          expect.objectContaining({ knowledge_base_item_id: item, content: expect.stringContaining(document.expectedText) }),
        ]);
      }
      const ofB = await createKb(b, { name: 'B assets' });
      expect(await call(b, 'POST', `/v1/private/knowledge_bases/${ofB.id}/items`, { asset_id: docx.id })).toMatchObject({
        status: 422,
        body: { error_code: 'resource_not_found', error: 'Asset not found' },
      });
      expect(await items(b, ofB.id)).toEqual([]);
    });

    it('embeds with the local model when the workspace sets it', async () => {
      const set = await call(b, 'PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: LOCAL_MODEL });
      expect(set.status).toBe(200);
      const local = await createKb(b, { name: 'Local model' });
      expect(local.embedding_model).toBe(LOCAL_MODEL);
      const item = await addUrl(b, local.id, files.url(`/docs/${fixtures.txt.fileName}`));
      expect((await settled(b, local.id))[0]).toMatchObject({ id: item.id, run_status: 'completed' });
      const record = (await call<{ knowledge_base: KnowledgeBaseRecord }>(b, 'GET', kbPath(b, local.id))).body.knowledge_base;
      expect(record.embedding_dimensions).toBe(512);
      const answer = await search(b, local.id, { search_query: fixtures.txt.expectedText, search_type: 'vector', search_chunk_limit: 1 });
      expect(answer.body.response.chunks).toEqual([
        expect.objectContaining({ knowledge_base_item_id: item.id, scores: { full_text: null, vector: expect.any(Number) } }),
      ]);
    });
  });

  describe('a crash mid-ingest', () => {
    it('leaves nothing of a half-indexed item visible, and the re-run job indexes it once', async () => {
      const crashed = await createKb(a, { name: 'Killed mid-ingest', search_type: 'full_text' });
      // Hold the knowledge base's row: the ingestion's transaction writes the item's chunks and
      // postings, then waits for it when it marks the item completed.
      const holder = new Client({ connectionString: TEST_DATABASE_URL });
      await holder.connect();
      let itemId = '';
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM knowledge_base.knowledge_bases WHERE id = $1 FOR UPDATE', [crashed.id]);
        const holderPid = Number((await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
        itemId = (await addUrl(a, crashed.id, files.url('/docs/long.txt'))).id;
        await expectEventually(
          async () => {
            const waiting = await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE application_name = 'waggle-knowledge-base' AND wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))`,
              [holderPid],
            );
            expect(waiting.rowCount).toBeGreaterThan(0);
          },
          { timeoutMs: INGESTION_TIMEOUT_MS, intervalMs: 50 },
        );
        // Mid-transaction: the item is running, and none of its chunks can be seen or found.
        expect((await items(a, crashed.id)).map((item) => item.run_status)).toEqual(['running']);
        expect(await chunkCount(crashed.id)).toBe(0);
        expect((await search(a, crashed.id, { search_query: 'herons', search_type: 'full_text' })).body.response.chunks).toEqual([]);
        expect(await knowledgeBaseApp.stop('SIGKILL')).toBeNull();
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect(await chunkCount(crashed.id)).toBe(0);
      knowledgeBaseApp = spawnApp('knowledge-base', await freePort(), kbEnv);
      await waitUntilLive(knowledgeBaseApp);
      const [item] = await settled(a, crashed.id);
      expect(item).toMatchObject({ id: itemId, run_status: 'completed' });
      // Indexed once: the chunk rows are exactly the count the item records, each position once.
      const rows = await db.query<{ chunks: string; positions: string }>(
        'SELECT count(*) AS chunks, count(DISTINCT position) AS positions FROM knowledge_base.chunks WHERE item_id = $1',
        [itemId],
      );
      expect(Number(rows.rows[0].chunks)).toBe(item.chunks_count);
      expect(Number(rows.rows[0].positions)).toBe(item.chunks_count);
      expect(item.chunks_count).toBeGreaterThan(1);
      expect(
        (await search(a, crashed.id, { search_query: 'herons', search_type: 'full_text' })).body.response.chunks.length,
      ).toBeGreaterThan(0);
    });
  });

  describe('delete and cleanup', () => {
    it('removes every chunk, item and the row of a deleted knowledge base; searching it answers 422 at once', async () => {
      const doomed = await createKb(a, { name: 'Doomed' });
      await addUrl(a, doomed.id, files.url('/docs/long.txt'));
      await addUrl(a, doomed.id, files.url(`/docs/${fixtures.csv.fileName}`));
      await settled(a, doomed.id);
      expect(await chunkCount(doomed.id)).toBeGreaterThan(10);
      expect(await call(a, 'DELETE', kbPath(a, doomed.id))).toEqual({
        status: 200,
        body: { message: 'Knowledge base deleted successfully; its contents are being removed' },
      });
      expect(await search(a, doomed.id, { search_query: 'herons' })).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'GET', `${kbPath(a, doomed.id)}/items`)).toEqual({ status: 422, body: KB_NOT_FOUND });
      await expectEventually(async () => expect(await leftovers(doomed.id)).toEqual({ knowledge_bases: 0, items: 0, chunks: 0 }), {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
    });

    it('finishes a cleanup whose service was killed part-way, once the service is back', async () => {
      const doomed = await createKb(a, { name: 'Killed mid-cleanup' });
      await addUrl(a, doomed.id, files.url('/docs/long.txt'));
      await addUrl(a, doomed.id, files.url('/docs/long-2.txt'));
      await settled(a, doomed.id);
      const before = await chunkCount(doomed.id);
      expect(before).toBeGreaterThan(20);
      // Hold the last chunk written: the cleanup removes batches of 5 and blocks on the batch that holds it.
      const holder = new Client({ connectionString: TEST_DATABASE_URL });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(
          `SELECT c.id FROM knowledge_base.chunks c JOIN knowledge_base.knowledge_base_items i ON i.id = c.item_id
            WHERE c.knowledge_base_id = $1 ORDER BY i.created_at DESC, c.position DESC LIMIT 1 FOR UPDATE OF c`,
          [doomed.id],
        );
        expect((await call(a, 'DELETE', kbPath(a, doomed.id))).status).toBe(200);
        const holderPid = Number((await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
        await expectEventually(
          async () => {
            expect(await chunkCount(doomed.id)).toBeLessThan(before);
            const waiting = await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE application_name = 'waggle-knowledge-base' AND wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))`,
              [holderPid],
            );
            expect(waiting.rowCount).toBeGreaterThan(0);
          },
          { timeoutMs: 60_000, intervalMs: 50 },
        );
        expect(await knowledgeBaseApp.stop('SIGKILL')).toBeNull();
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      expect((await leftovers(doomed.id)).knowledge_bases).toBe(1);
      knowledgeBaseApp = spawnApp('knowledge-base', await freePort(), kbEnv);
      await waitUntilLive(knowledgeBaseApp);
      await expectEventually(async () => expect(await leftovers(doomed.id)).toEqual({ knowledge_bases: 0, items: 0, chunks: 0 }), {
        timeoutMs: 60_000,
        intervalMs: 100,
      });
    });
  });
});
