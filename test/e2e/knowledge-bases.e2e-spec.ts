import type { EmbeddingModelSetting, KnowledgeBaseItemRecord, KnowledgeBaseRecord } from '@waggle/contracts';
import { cliJson, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { randomUUID } from 'node:crypto';

interface Workspace {
  id: string;
  key: string;
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

const RECORD_KEYS = [
  'id',
  'name',
  'description',
  'search_type',
  'search_score_threshold',
  'search_chunk_limit',
  'status',
  'items_count',
  'items_by_status',
  'embedding_model',
  'embedding_dimensions',
  'created_at',
  'updated_at',
].sort();
const ITEM_KEYS = [
  'id',
  'name',
  'knowledge_base_id',
  'item_type',
  'run_status',
  'status',
  'error',
  'chunks_count',
  'created_at',
  'updated_at',
].sort();

const KB_NOT_FOUND = {
  error: 'Knowledge base not found',
  message: 'Knowledge base not found',
  error_code: 'resource_not_found',
  code: 'resource_not_found',
};
const WORKSPACE_NOT_FOUND = { error: 'Workspace not found', message: 'Workspace not found', error_code: 'not_found', code: 'not_found' };
const SEARCH = { search_query: 'what is waggle', search_type: 'hybrid', search_chunk_limit: 5, search_score_threshold: 0 };
const DEFAULT_EMBEDDING_MODEL = 'text-embedding-3-small';

/**
 * Knowledge base management through the gateway over HTTP, as a client calls it: the spec's
 * "Knowledge bases" and "Knowledge base search" tables with the decisions' record, statuses
 * and bodies, per workspace; items added through the private routes and the CLI; the
 * workspace's embedding model setting.
 */
describe('knowledge bases: /v1/public/workspaces/{workspace_id}/knowledge_bases', () => {
  const apps: AppProcess[] = [];
  let gateway: string;
  let a: Workspace;
  let b: Workspace;

  async function call<T = Record<string, unknown>>(
    who: Workspace | string | null,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer<T>> {
    const key = who === null ? undefined : typeof who === 'string' ? who : who.key;
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: {
        ...(key !== undefined && { authorization: `Bearer ${key}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }
  const kbs = (workspace: Workspace) => `/v1/public/workspaces/${workspace.id}/knowledge_bases`;
  const one = (workspace: Workspace, id: string) => `${kbs(workspace)}/${id}`;
  const privateItems = (id: string) => `/v1/private/knowledge_bases/${id}/items`;
  const createIn = (workspace: Workspace, knowledgeBase: Record<string, unknown>) =>
    call<{ message: string; knowledge_base: KnowledgeBaseRecord }>(workspace, 'POST', kbs(workspace), { knowledge_base: knowledgeBase });
  async function created(workspace: Workspace, knowledgeBase: Record<string, unknown> = {}): Promise<KnowledgeBaseRecord> {
    const answer = await createIn(workspace, { name: 'Docs', ...knowledgeBase });
    expect(answer).toMatchObject({ status: 200, body: { message: 'Knowledge base created successfully' } });
    return answer.body.knowledge_base;
  }
  const listed = async (workspace: Workspace) =>
    (await call<{ knowledge_bases: KnowledgeBaseRecord[] }>(workspace, 'GET', kbs(workspace))).body.knowledge_bases;
  async function addedItem(workspace: Workspace, knowledgeBaseId: string, body: Record<string, unknown>): Promise<KnowledgeBaseItemRecord> {
    const answer = await call<{ knowledge_base_item: KnowledgeBaseItemRecord }>(workspace, 'POST', privateItems(knowledgeBaseId), body);
    expect(answer.status).toBe(200);
    return answer.body.knowledge_base_item;
  }

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'warn', KB_EMBEDDING_MODEL: DEFAULT_EMBEDDING_MODEL };
    for (const app of ['catalog', 'knowledge-base', 'gateway'] as const) apps.push(spawnApp(app, await freePort(), env));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[apps.length - 1].baseUrl;
    const workspace = async (name: string) => {
      const made = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name]);
      return { id: made.workspace_id, key: made.api_key };
    };
    [a, b] = [await workspace('e2e knowledge bases A'), await workspace('e2e knowledge bases B')];
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  describe('create (POST)', () => {
    it('answers 200 {message, knowledge_base} with the record fields and the defaults hybrid / 0.3 / 5', async () => {
      const answer = await createIn(a, { name: 'Handbook' });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['knowledge_base', 'message']);
      expect(Object.keys(answer.body.knowledge_base).sort()).toEqual(RECORD_KEYS);
      expect(answer.body.knowledge_base).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: 'Handbook',
        description: null,
        search_type: 'hybrid',
        search_score_threshold: 0.3,
        search_chunk_limit: 5,
        status: 'active',
        items_count: 0,
        items_by_status: { queued: 0, running: 0, completed: 0, failed: 0 },
        embedding_model: DEFAULT_EMBEDDING_MODEL,
        embedding_dimensions: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: answer.body.knowledge_base.created_at,
      });
    });

    it('accepts every field and every search type', async () => {
      for (const searchType of ['hybrid', 'vector', 'full_text']) {
        const knowledgeBase = await created(a, {
          name: `All ${searchType}`,
          description: 'about',
          search_type: searchType,
          search_score_threshold: 0.75,
          search_chunk_limit: 20,
        });
        expect(knowledgeBase).toMatchObject({
          name: `All ${searchType}`,
          description: 'about',
          search_type: searchType,
          search_score_threshold: 0.75,
          search_chunk_limit: 20,
        });
      }
      expect(await created(a, { search_score_threshold: 0, search_chunk_limit: 1 })).toMatchObject({
        search_score_threshold: 0,
        search_chunk_limit: 1,
      });
      expect(await created(a, { search_score_threshold: 1 })).toMatchObject({ search_score_threshold: 1 });
    });

    it('takes search_chunk_limit as an integer or a string of digits (coerced), and refuses anything else with 422 validation_error', async () => {
      expect(await created(a, { search_chunk_limit: '7' })).toMatchObject({ search_chunk_limit: 7 });
      for (const bad of ['seven', '7.5', 7.5, 0, 21, '21', true, [], {}, null, randomUUID()]) {
        const answer = await createIn(a, { name: 'Bad limit', search_chunk_limit: bad });
        expect({ bad, status: answer.status, body: answer.body }).toMatchObject({
          bad,
          status: 422,
          body: { error_code: 'validation_error', details: [{ field: 'knowledge_base.search_chunk_limit' }] },
        });
      }
    });

    it('refuses an unknown search type, thresholds out of [0, 1], and bad names, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'x', search_type: 'semantic' }, 'knowledge_base.search_type'],
        [{ name: 'x', search_type: null }, 'knowledge_base.search_type'],
        [{ name: 'x', search_score_threshold: -0.01 }, 'knowledge_base.search_score_threshold'],
        [{ name: 'x', search_score_threshold: 1.01 }, 'knowledge_base.search_score_threshold'],
        [{ name: 'x', search_score_threshold: '0.5' }, 'knowledge_base.search_score_threshold'],
        [{ name: '' }, 'knowledge_base.name'],
        [{ name: 42 }, 'knowledge_base.name'],
        [{ name: 'x', description: 7 }, 'knowledge_base.description'],
      ];
      for (const [knowledgeBase, field] of cases) {
        const answer = await createIn(a, knowledgeBase);
        expect({ knowledgeBase, status: answer.status, body: answer.body }).toMatchObject({
          knowledgeBase,
          status: 422,
          body: { error_code: 'validation_error', details: [{ field }] },
        });
      }
    });

    it('requires the knowledge_base wrapper and its name (missing_required_field), refuses unknown fields and bodies that are not JSON', async () => {
      expect(await call(a, 'POST', kbs(a), { name: 'no wrapper' })).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field' },
      });
      expect(await call(a, 'POST', kbs(a), {})).toMatchObject({ status: 422, body: { error_code: 'missing_required_field' } });
      expect(await createIn(a, { description: 'nameless' })).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field', details: [{ field: 'knowledge_base.name' }] },
      });
      expect(await createIn(a, { name: 'x', embedding_model: 'text-embedding-3-large' })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error' },
      });
      expect(await call(a, 'POST', kbs(a), '{"knowledge_base":')).toMatchObject({ status: 400, body: { error_code: 'invalid_request' } });
    });
  });

  describe('list and read (GET)', () => {
    it("lists the workspace's own knowledge bases as {knowledge_bases: [...]}, oldest first, and nothing of another workspace", async () => {
      const first = await created(b, { name: 'B first' });
      const second = await created(b, { name: 'B second' });
      const answer = await call<{ knowledge_bases: KnowledgeBaseRecord[] }>(b, 'GET', kbs(b));
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(['knowledge_bases']);
      expect(answer.body.knowledge_bases.map((knowledgeBase) => knowledgeBase.id).slice(-2)).toEqual([first.id, second.id]);
      const ofA = await listed(a);
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofA.some((knowledgeBase) => knowledgeBase.id === first.id || knowledgeBase.id === second.id)).toBe(false);
      for (const knowledgeBase of ofA) expect(Object.keys(knowledgeBase).sort()).toEqual(RECORD_KEYS);
    });

    it('reads one knowledge base as {knowledge_base}', async () => {
      const knowledgeBase = await created(a, { name: 'Readable', description: 'd' });
      const answer = await call(a, 'GET', one(a, knowledgeBase.id));
      expect(answer).toEqual({ status: 200, body: { knowledge_base: knowledgeBase } });
    });

    it('answers an unknown id, or one that is not a UUID, 422 Knowledge base not found on get, patch, delete, items and search', async () => {
      for (const id of [randomUUID(), 'not-a-uuid', '12345']) {
        expect(await call(a, 'GET', one(a, id))).toEqual({ status: 422, body: KB_NOT_FOUND });
        expect(await call(a, 'PATCH', one(a, id), { knowledge_base: { name: 'x' } })).toEqual({ status: 422, body: KB_NOT_FOUND });
        expect(await call(a, 'DELETE', one(a, id))).toEqual({ status: 422, body: KB_NOT_FOUND });
        expect(await call(a, 'GET', `${one(a, id)}/items`)).toEqual({ status: 422, body: KB_NOT_FOUND });
      }
    });
  });

  describe('update (PATCH)', () => {
    it('changes the named fields only and answers {message, knowledge_base}', async () => {
      const knowledgeBase = await created(a, { name: 'Before', description: 'old' });
      const answer = await call<{ message: string; knowledge_base: KnowledgeBaseRecord }>(a, 'PATCH', one(a, knowledgeBase.id), {
        knowledge_base: { name: 'After', search_type: 'full_text', search_score_threshold: 0.9, search_chunk_limit: 12 },
      });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['knowledge_base', 'message']);
      expect(answer.body.message).toBe('Knowledge base updated successfully');
      expect(answer.body.knowledge_base).toEqual({
        ...knowledgeBase,
        name: 'After',
        search_type: 'full_text',
        search_score_threshold: 0.9,
        search_chunk_limit: 12,
        updated_at: expect.any(String),
      });
      expect(Date.parse(answer.body.knowledge_base.updated_at)).toBeGreaterThan(Date.parse(knowledgeBase.updated_at));
      expect((await call(a, 'GET', one(a, knowledgeBase.id))).body).toEqual({ knowledge_base: answer.body.knowledge_base });
      const cleared = await call<{ knowledge_base: KnowledgeBaseRecord }>(a, 'PATCH', one(a, knowledgeBase.id), {
        knowledge_base: { description: null },
      });
      expect(cleared).toMatchObject({ status: 200, body: { knowledge_base: { name: 'After', description: null } } });
      expect(await call(a, 'PATCH', one(a, knowledgeBase.id), { knowledge_base: {} })).toMatchObject({
        status: 200,
        body: { knowledge_base: { name: 'After' } },
      });
    });

    it('takes search_chunk_limit as an integer only on update, checks enums and bounds, and requires the wrapper', async () => {
      const knowledgeBase = await created(a, { name: 'Strict' });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ search_chunk_limit: '7' }, 'knowledge_base.search_chunk_limit'],
        [{ search_chunk_limit: 0 }, 'knowledge_base.search_chunk_limit'],
        [{ search_chunk_limit: 21 }, 'knowledge_base.search_chunk_limit'],
        [{ search_chunk_limit: null }, 'knowledge_base.search_chunk_limit'],
        [{ search_type: 'keyword' }, 'knowledge_base.search_type'],
        [{ search_score_threshold: 2 }, 'knowledge_base.search_score_threshold'],
        [{ name: null }, 'knowledge_base.name'],
        [{ name: '' }, 'knowledge_base.name'],
      ];
      for (const [fields, field] of cases) {
        const answer = await call(a, 'PATCH', one(a, knowledgeBase.id), { knowledge_base: fields });
        expect({ fields, status: answer.status, body: answer.body }).toMatchObject({
          fields,
          status: 422,
          body: { error_code: 'validation_error', details: [{ field }] },
        });
      }
      expect(await call(a, 'PATCH', one(a, knowledgeBase.id), { name: 'no wrapper' })).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field' },
      });
      expect((await call(a, 'GET', one(a, knowledgeBase.id))).body).toEqual({ knowledge_base: knowledgeBase });
    });
  });

  describe('items', () => {
    it('adds a document by URL through the private route and the CLI, listed as {knowledge_base_items: [...]} with the spec fields, and counted on the record', async () => {
      const knowledgeBase = await created(a, { name: 'With items' });
      const byRoute = await addedItem(a, knowledgeBase.id, { url: 'https://docs.example.invalid/guides/setup.md' });
      expect(Object.keys(byRoute).sort()).toEqual(ITEM_KEYS);
      expect(byRoute).toMatchObject({
        name: 'setup.md',
        knowledge_base_id: knowledgeBase.id,
        item_type: 'url',
        run_status: 'queued',
        status: 'active',
        error: null,
        chunks_count: 0,
      });
      const byCli = await cliJson<KnowledgeBaseItemRecord>([
        'kb',
        'item',
        'add',
        a.id,
        knowledgeBase.id,
        '--url',
        'https://docs.example.invalid/faq',
        '--name',
        'FAQ',
      ]);
      expect(byCli).toMatchObject({ name: 'FAQ', knowledge_base_id: knowledgeBase.id, item_type: 'url' });
      const answer = await call<{ knowledge_base_items: KnowledgeBaseItemRecord[] }>(a, 'GET', `${one(a, knowledgeBase.id)}/items`);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(['knowledge_base_items']);
      expect(answer.body.knowledge_base_items.map((item) => item.id)).toEqual([byRoute.id, byCli.id]);
      for (const item of answer.body.knowledge_base_items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      const shown = await call<{ knowledge_base_item: KnowledgeBaseItemRecord }>(
        a,
        'GET',
        `${privateItems(knowledgeBase.id)}/${byRoute.id}`,
      );
      expect(shown).toMatchObject({ status: 200, body: { knowledge_base_item: { id: byRoute.id, name: 'setup.md' } } });
      expect(await cliJson<KnowledgeBaseItemRecord>(['kb', 'item', 'show', a.id, knowledgeBase.id, byCli.id])).toMatchObject({
        id: byCli.id,
        name: 'FAQ',
      });
      const record = (await call<{ knowledge_base: KnowledgeBaseRecord }>(a, 'GET', one(a, knowledgeBase.id))).body.knowledge_base;
      expect(record.items_count).toBe(2);
      expect(Object.values(record.items_by_status).reduce((sum, count) => sum + count, 0)).toBe(2);
    });

    it("pages the items through the private list, newest first, with a cursor; another knowledge base's cursor gives an empty page", async () => {
      const knowledgeBase = await created(a, { name: 'Paged items' });
      const added: KnowledgeBaseItemRecord[] = [];
      for (let index = 0; index < 5; index++) {
        added.push(await addedItem(a, knowledgeBase.id, { url: `https://docs.example.invalid/paged/${index}.md` }));
      }
      const page = async (query: string, id = knowledgeBase.id) => {
        const answer = await call<{ knowledge_base_items: KnowledgeBaseItemRecord[] }>(a, 'GET', `${privateItems(id)}${query}`);
        expect([query, answer.status]).toEqual([query, 200]);
        expect(Object.keys(answer.body)).toEqual(['knowledge_base_items']);
        return answer.body.knowledge_base_items;
      };
      // Without a limit: all five (the default page is 50), newest first: the public list (oldest first) reversed.
      const all = await page('');
      for (const item of all) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      const publicIds = (
        await call<{ knowledge_base_items: KnowledgeBaseItemRecord[] }>(a, 'GET', `${one(a, knowledgeBase.id)}/items`)
      ).body.knowledge_base_items.map((item) => item.id);
      expect(all.map((item) => item.id)).toEqual([...publicIds].reverse());
      expect([...publicIds].sort()).toEqual(added.map((item) => item.id).sort());

      const pages: string[][] = [];
      let before: string | undefined;
      for (;;) {
        const next = await page(`?limit=2${before === undefined ? '' : `&before=${before}`}`);
        if (next.length === 0) break;
        pages.push(next.map((item) => item.id));
        before = next[next.length - 1].id;
      }
      expect(pages.map((ids) => ids.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(all.map((item) => item.id));

      // A cursor of another knowledge base (even of the same workspace), an unknown one, or no UUID: an empty page.
      const other = await created(a, { name: 'Other items' });
      const otherItem = await addedItem(a, other.id, { url: 'https://docs.example.invalid/other.md' });
      for (const cursor of [otherItem.id, randomUUID(), 'not-an-item']) expect(await page(`?before=${cursor}`)).toEqual([]);
      expect((await page('', other.id)).map((item) => item.id)).toEqual([otherItem.id]);

      // Another workspace's knowledge base, or an unknown one: Knowledge base not found, as everywhere.
      const theirs = await created(b, { name: 'Theirs' });
      expect(await call(a, 'GET', privateItems(theirs.id))).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'GET', privateItems(randomUUID()))).toEqual({ status: 422, body: KB_NOT_FOUND });
      for (const bad of ['limit=0', 'limit=1001', 'limit=abc', 'limit=1.5', 'before=', `before=${'x'.repeat(101)}`]) {
        const answer = await call(a, 'GET', `${privateItems(knowledgeBase.id)}?${bad}`);
        expect([bad, answer.status]).toEqual([bad, 422]);
        expect(answer.body).toEqual(expect.objectContaining({ error_code: 'validation_error', code: 'validation_error' }));
      }
      expect((await call(null, 'GET', privateItems(knowledgeBase.id))).status).toBe(401);
    });

    it('refuses a URL that is not https, both or neither of asset_id and url, and an unknown item', async () => {
      const knowledgeBase = await created(a, { name: 'Picky' });
      for (const url of ['http://docs.example.invalid/a.md', 'ftp://docs.example.invalid/a.md', 'not a url', 'file:///etc/passwd']) {
        expect(await call(a, 'POST', privateItems(knowledgeBase.id), { url })).toMatchObject({
          status: 422,
          body: { error_code: 'validation_error', details: [{ field: 'url' }] },
        });
      }
      expect(await call(a, 'POST', privateItems(knowledgeBase.id), {})).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field' },
      });
      expect(
        await call(a, 'POST', privateItems(knowledgeBase.id), { url: 'https://docs.example.invalid/a', asset_id: randomUUID() }),
      ).toMatchObject({ status: 422, body: { error_code: 'validation_error' } });
      expect(await call(a, 'POST', privateItems(knowledgeBase.id), { asset_id: 'not-a-uuid' })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'asset_id' }] },
      });
      expect(await call(a, 'GET', `${privateItems(knowledgeBase.id)}/${randomUUID()}`)).toMatchObject({
        status: 422,
        body: { error_code: 'resource_not_found', error: 'Knowledge base item not found' },
      });
      expect(await call(a, 'POST', privateItems(randomUUID()), { url: 'https://docs.example.invalid/a' })).toEqual({
        status: 422,
        body: KB_NOT_FOUND,
      });
      expect(
        (await call<{ knowledge_base_items: unknown[] }>(a, 'GET', `${one(a, knowledgeBase.id)}/items`)).body.knowledge_base_items,
      ).toEqual([]);
    });
  });

  describe('search (POST …/search): the gateway checks the body', () => {
    it('requires all four fields (missing_required_field naming each)', async () => {
      const knowledgeBase = await created(a, { name: 'Searchable' });
      for (const field of Object.keys(SEARCH)) {
        const body: Record<string, unknown> = { ...SEARCH };
        delete body[field];
        const answer = await call(a, 'POST', `${one(a, knowledgeBase.id)}/search`, body);
        expect({ field, status: answer.status, body: answer.body }).toMatchObject({
          field,
          status: 422,
          body: { error_code: 'missing_required_field', details: [{ field }] },
        });
      }
    });

    it('refuses an invalid search type with 422 and an error saying so', async () => {
      const knowledgeBase = await created(a, { name: 'Typed' });
      for (const searchType of ['semantic', 'HYBRID', '']) {
        const answer = await call(a, 'POST', `${one(a, knowledgeBase.id)}/search`, { ...SEARCH, search_type: searchType });
        expect(answer).toMatchObject({
          status: 422,
          body: {
            error: expect.stringMatching(/^Invalid search type/),
            error_code: 'validation_error',
            details: [{ field: 'search_type' }],
          },
        });
      }
    });

    it('refuses a limit outside 1 to 20 or not an integer, and a threshold outside 0 to 1', async () => {
      const knowledgeBase = await created(a, { name: 'Bounded' });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ search_chunk_limit: 0 }, 'search_chunk_limit'],
        [{ search_chunk_limit: 21 }, 'search_chunk_limit'],
        [{ search_chunk_limit: 2.5 }, 'search_chunk_limit'],
        [{ search_chunk_limit: '5' }, 'search_chunk_limit'],
        [{ search_score_threshold: -0.1 }, 'search_score_threshold'],
        [{ search_score_threshold: 1.5 }, 'search_score_threshold'],
        [{ search_query: '' }, 'search_query'],
        [{ search_query: 42 }, 'search_query'],
      ];
      for (const [fields, field] of cases) {
        const answer = await call(a, 'POST', `${one(a, knowledgeBase.id)}/search`, { ...SEARCH, ...fields });
        expect({ fields, status: answer.status, body: answer.body }).toMatchObject({
          fields,
          status: 422,
          body: { error_code: 'validation_error', details: [{ field }] },
        });
      }
    });
  });

  describe('delete (DELETE)', () => {
    it('answers {message} at once, and the knowledge base is never read, listed, updated, searched or given items again', async () => {
      const knowledgeBase = await created(a, { name: 'Doomed' });
      const item = await addedItem(a, knowledgeBase.id, { url: 'https://docs.example.invalid/doomed.txt' });
      const answer = await call(a, 'DELETE', one(a, knowledgeBase.id));
      expect(answer).toEqual({ status: 200, body: { message: 'Knowledge base deleted successfully; its contents are being removed' } });
      expect(await call(a, 'GET', one(a, knowledgeBase.id))).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'PATCH', one(a, knowledgeBase.id), { knowledge_base: { name: 'Revived' } })).toEqual({
        status: 422,
        body: KB_NOT_FOUND,
      });
      expect(await call(a, 'DELETE', one(a, knowledgeBase.id))).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'GET', `${one(a, knowledgeBase.id)}/items`)).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'POST', privateItems(knowledgeBase.id), { url: 'https://docs.example.invalid/late.txt' })).toEqual({
        status: 422,
        body: KB_NOT_FOUND,
      });
      expect(await call(a, 'GET', `${privateItems(knowledgeBase.id)}/${item.id}`)).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect((await listed(a)).some((listedKb) => listedKb.id === knowledgeBase.id)).toBe(false);
    });
  });

  describe('workspaces', () => {
    it("answers another workspace's knowledge base 422 Knowledge base not found on every route, and leaves it untouched", async () => {
      const theirs = await created(b, { name: 'B private' });
      const theirItem = await addedItem(b, theirs.id, { url: 'https://docs.example.invalid/b-only.md' });
      expect(await call(a, 'GET', one(a, theirs.id))).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'PATCH', one(a, theirs.id), { knowledge_base: { name: 'Taken' } })).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'DELETE', one(a, theirs.id))).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'GET', `${one(a, theirs.id)}/items`)).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(a, 'POST', privateItems(theirs.id), { url: 'https://docs.example.invalid/sneak.md' })).toEqual({
        status: 422,
        body: KB_NOT_FOUND,
      });
      expect(await call(a, 'GET', `${privateItems(theirs.id)}/${theirItem.id}`)).toEqual({ status: 422, body: KB_NOT_FOUND });
      expect(await call(b, 'GET', one(b, theirs.id))).toMatchObject({
        status: 200,
        body: { knowledge_base: { id: theirs.id, name: 'B private', items_count: 1 } },
      });
      expect(
        (
          await call<{ knowledge_base_items: KnowledgeBaseItemRecord[] }>(b, 'GET', `${one(b, theirs.id)}/items`)
        ).body.knowledge_base_items.map((item) => item.id),
      ).toEqual([theirItem.id]);
    });

    it('answers a workspace in the path that is not the key\'s 404 "Workspace not found" on every route', async () => {
      const mine = await created(a, { name: 'Mine' });
      for (const other of [b.id, randomUUID(), 'not-a-workspace']) {
        const base = `/v1/public/workspaces/${other}/knowledge_bases`;
        const requests: Array<[string, string, unknown]> = [
          ['GET', base, undefined],
          ['POST', base, { knowledge_base: { name: 'x' } }],
          ['GET', `${base}/${mine.id}`, undefined],
          ['PATCH', `${base}/${mine.id}`, { knowledge_base: { name: 'x' } }],
          ['DELETE', `${base}/${mine.id}`, undefined],
          ['GET', `${base}/${mine.id}/items`, undefined],
          ['POST', `${base}/${mine.id}/search`, SEARCH],
        ];
        for (const [method, path, body] of requests) {
          const answer = await call(a, method, path, body);
          expect({ method, path, status: answer.status, body: answer.body }).toEqual({
            method,
            path,
            status: 404,
            body: WORKSPACE_NOT_FOUND,
          });
        }
      }
      expect(await call(a, 'GET', one(a, mine.id))).toMatchObject({ status: 200, body: { knowledge_base: { id: mine.id } } });
    });

    it('answers 401 without a valid key on every route', async () => {
      const mine = await created(a, { name: 'Keyed' });
      const routes: Array<[string, string, unknown]> = [
        ['GET', kbs(a), undefined],
        ['POST', kbs(a), { knowledge_base: { name: 'x' } }],
        ['GET', one(a, mine.id), undefined],
        ['PATCH', one(a, mine.id), { knowledge_base: { name: 'x' } }],
        ['DELETE', one(a, mine.id), undefined],
        ['GET', `${one(a, mine.id)}/items`, undefined],
        ['POST', `${one(a, mine.id)}/search`, SEARCH],
        ['POST', privateItems(mine.id), { url: 'https://docs.example.invalid/a' }],
        ['GET', '/v1/private/knowledge_bases/embedding_model', undefined],
        ['PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: 'text-embedding-3-large' }],
      ];
      for (const who of [null, 'wgl_not_a_real_key']) {
        for (const [method, path, body] of routes) {
          const answer = await call(who, method, path, body);
          expect({ method, path, status: answer.status, code: answer.body.error_code }).toEqual({
            method,
            path,
            status: 401,
            code: who === null ? 'unauthorized' : 'invalid_api_key',
          });
        }
      }
      expect(await call(a, 'GET', one(a, mine.id))).toMatchObject({ status: 200, body: { knowledge_base: { name: 'Keyed' } } });
    });
  });

  describe('embedding model setting', () => {
    it("defaults to the operator's model, is set per workspace (route and CLI) to an active embedding model, and new knowledge bases take it", async () => {
      const setting = (who: Workspace) =>
        call<{ embedding_model: EmbeddingModelSetting }>(who, 'GET', '/v1/private/knowledge_bases/embedding_model');
      expect(await setting(b)).toEqual({
        status: 200,
        body: { embedding_model: { embedding_model: DEFAULT_EMBEDDING_MODEL, source: 'default' } },
      });
      const before = await created(b, { name: 'Before the setting' });
      const set = await call(b, 'PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: 'text-embedding-3-large' });
      expect(set).toEqual({ status: 200, body: { embedding_model: { embedding_model: 'text-embedding-3-large', source: 'workspace' } } });
      expect(await created(b, { name: 'After the setting' })).toMatchObject({ embedding_model: 'text-embedding-3-large' });
      expect((await call(b, 'GET', one(b, before.id))).body).toMatchObject({
        knowledge_base: { embedding_model: DEFAULT_EMBEDDING_MODEL },
      });
      // Workspace A is untouched.
      expect((await setting(a)).body.embedding_model).toEqual({ embedding_model: DEFAULT_EMBEDDING_MODEL, source: 'default' });
      expect(await cliJson<EmbeddingModelSetting>(['kb', 'embedding-model', 'set', b.id, 'gemini-embedding-001'])).toEqual({
        embedding_model: 'gemini-embedding-001',
        source: 'workspace',
      });
      expect(await cliJson<EmbeddingModelSetting>(['kb', 'embedding-model', 'show', b.id])).toEqual({
        embedding_model: 'gemini-embedding-001',
        source: 'workspace',
      });
    });

    it('refuses a model the catalog does not have, or one that is not an embedding model, with 422 naming it', async () => {
      for (const model of ['no-such-embedding', 'gpt-6-luna']) {
        const answer = await call(a, 'PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: model });
        expect(answer).toMatchObject({
          status: 422,
          body: { error: expect.stringContaining(model), error_code: 'validation_error', details: [{ field: 'embedding_model' }] },
        });
      }
      expect(await call(a, 'PUT', '/v1/private/knowledge_bases/embedding_model', {})).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field' },
      });
    });
  });
});
