import { randomUUID } from 'node:crypto';
import { fakeEmbedding, FakeProviderServer } from '@waggle/fake-provider';
import { DataRepository } from '@waggle/database';
import { ProviderRegistry, providerSettingsFromEnv, type ModelRoute } from '@waggle/providers';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source';
import { ProviderChunkEmbedder } from '../src/index/chunk-embedder';
import type { ChunkSearch, IndexedItem, IndexedKnowledgeBase, ItemChunk } from '../src/index/chunk-index';
import { ChunkIndexService, type ChunkIndexOptions } from '../src/index/chunk-index.service';
import { ChunksRepository } from '../src/index/chunks.repository';
import { BM25_B, BM25_K1 } from '../src/index/scoring';

// The index against the real PostgreSQL (the migrated test database) with embeddings from the
// fake provider over HTTP through the provider layer, as the service embeds.

const EMBEDDER_MODEL = 'text-embedding-fake';
const ROUTE: ModelRoute = {
  modelId: 'fake-embedder',
  provider: 'fake',
  providerName: 'Fake Host',
  providerApi: 'openai-compatible',
  providerModelId: EMBEDDER_MODEL,
};
const DIMENSIONS = 64;
const OPTIONS: ChunkIndexOptions = {
  fusion: { fullText: 1, vector: 0.5, rankConstant: 60 },
  localVectorWeight: 0.02,
  hybridCandidates: 50,
};

const chunk = (position: number, content: string): ItemChunk => ({ position, content, tokens: content.split(/\s+/).length });

/** Counts a knowledge base's chunks as any repository of the service reads: inside the transaction the call runs in, if any. */
class ChunkCounter extends DataRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  async count(knowledgeBaseId: string): Promise<number> {
    const [row] = (await this.db.query(`SELECT count(*)::int AS count FROM knowledge_base.chunks WHERE knowledge_base_id = $1`, [
      knowledgeBaseId,
    ])) as Array<{ count: number }>;
    return row.count;
  }
}

describe('ChunkIndexService', () => {
  const server = new FakeProviderServer();
  let dataSource: DataSource;
  let chunks: ChunksRepository;
  let embedder: ProviderChunkEmbedder;
  let pgvector: ChunkIndexService;
  let exact: ChunkIndexService;

  beforeAll(async () => {
    const url = await server.start();
    const registry = new ProviderRegistry(
      providerSettingsFromEnv({ FAKE_API_KEY: 'fake-key', FAKE_BASE_URL: `${url}/v1`, PROVIDER_MAX_RETRIES: 0 }),
    );
    embedder = new ProviderChunkEmbedder(registry, async () => ROUTE, 3);
    // The integration tier's setup points DATABASE_URL at the test database.
    dataSource = new DataSource(dataSourceOptions(process.env.DATABASE_URL as string));
    await dataSource.initialize();
    chunks = new ChunksRepository(dataSource);
    const detected = await chunks.detectVectorPath();
    // This machine's PostgreSQL has pgvector: the detected path must be it, so both paths run.
    expect(detected.kind).toBe('pgvector');
    pgvector = new ChunkIndexService(chunks, embedder, detected, OPTIONS);
    exact = new ChunkIndexService(chunks, embedder, { kind: 'exact' }, OPTIONS);
  });
  beforeEach(() => server.setModel(EMBEDDER_MODEL, { embeddingDimensions: DIMENSIONS }));
  afterEach(() => server.reset());
  afterAll(async () => {
    await dataSource?.destroy();
    await server.stop();
  });

  const newKnowledgeBase = (): IndexedKnowledgeBase => ({
    id: randomUUID(),
    workspace_id: randomUUID(),
    embedding_model: 'fake-embedder',
    embedding_dimensions: null,
  });
  const newItem = (name = 'doc.txt'): IndexedItem => ({ id: randomUUID(), name });

  /** Indexes the items' chunks; the knowledge base records the dimension as the service would. */
  async function indexAll(
    index: ChunkIndexService,
    knowledgeBase: IndexedKnowledgeBase,
    items: Array<[IndexedItem, string[]]>,
  ): Promise<void> {
    for (const [item, texts] of items) {
      const result = await index.indexItem(
        knowledgeBase,
        item,
        texts.map((text, position) => chunk(position, text)),
        async () => undefined,
      );
      knowledgeBase.embedding_dimensions = result.dimensions;
    }
  }

  async function count(table: 'chunks' | 'chunk_postings' | 'chunk_vectors', knowledgeBaseId: string): Promise<number> {
    const [row] = (await dataSource.query(`SELECT count(*)::int AS count FROM knowledge_base.${table} WHERE knowledge_base_id = $1`, [
      knowledgeBaseId,
    ])) as Array<{ count: number }>;
    return row.count;
  }

  const search = (query: string, type: ChunkSearch['type'], extra: Partial<ChunkSearch> = {}): ChunkSearch => ({
    query,
    type,
    limit: 10,
    threshold: 0,
    ...extra,
  });

  describe('full_text (BM25)', () => {
    // "solar" is in most chunks (low idf), "eclipse" in one. ts_rank, with no idf, puts the chunk
    // repeating "solar" first; BM25 weighs the rare term and saturates term frequency.
    const CORPUS = [
      'solar solar solar solar solar solar solar solar solar panels, solar inverters and solar roofs',
      'The lunar eclipse was visible all night long.',
      'Solar power is cheaper.',
      'Solar farms need land, water and plenty of sunlight.',
      'Rooftop solar panels work in cloudy northern countries in winter too.',
    ];

    it('ranks by BM25: saturated term frequency, idf, length normalization; exact scores', async () => {
      const knowledgeBase = newKnowledgeBase();
      const item = newItem('energy.txt');
      await indexAll(pgvector, knowledgeBase, [[item, CORPUS]]);
      const query = 'solar eclipse';

      // ts_rank (no idf, unsaturated frequency) puts the repetitive chunk first on this corpus.
      const tsRank = (await dataSource.query(
        `SELECT content FROM knowledge_base.chunks WHERE knowledge_base_id = $1
          ORDER BY ts_rank(to_tsvector('english', content), to_tsquery('english', 'solar | eclipse')) DESC LIMIT 1`,
        [knowledgeBase.id],
      )) as Array<{ content: string }>;
      expect(tsRank[0].content).toBe(CORPUS[0]);

      const found = await pgvector.search(knowledgeBase, search(query, 'full_text'));
      expect(found.map((entry) => entry.content)).toEqual([CORPUS[1], CORPUS[0], CORPUS[2], CORPUS[3], CORPUS[4]].slice(0, found.length));
      expect(found).toHaveLength(5);
      expect(found[0]).toEqual({
        id: expect.any(String),
        knowledge_base_item_id: item.id,
        item_name: 'energy.txt',
        content: CORPUS[1],
        score: expect.any(Number),
        scores: { full_text: found[0].score, vector: null },
        position: 1,
      });

      // The scores are BM25 over the stored postings divided by the query's maximum attainable score.
      const chunks = (await dataSource.query(`SELECT id, length FROM knowledge_base.chunks WHERE knowledge_base_id = $1`, [
        knowledgeBase.id,
      ])) as Array<{ id: string; length: number }>;
      const postings = (await dataSource.query(
        `SELECT lexeme, chunk_id, tf FROM knowledge_base.chunk_postings WHERE knowledge_base_id = $1`,
        [knowledgeBase.id],
      )) as Array<{
        lexeme: string;
        chunk_id: string;
        tf: number;
      }>;
      const n = chunks.length;
      const avgdl = chunks.reduce((sum, row) => sum + row.length, 0) / n;
      const lengths = new Map(chunks.map((row) => [row.id, row.length]));
      const terms = ['solar', 'eclips'];
      const idf = (term: string) => {
        const df = postings.filter((posting) => posting.lexeme === term).length;
        return Math.log(1 + (n - df + 0.5) / (df + 0.5));
      };
      const bm25 = (chunkId: string) =>
        terms.reduce((sum, term) => {
          const tf = postings.find((posting) => posting.lexeme === term && posting.chunk_id === chunkId)?.tf ?? 0;
          const length = lengths.get(chunkId) as number;
          return sum + (idf(term) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl));
        }, 0);
      const maximum = terms.reduce((sum, term) => sum + idf(term) * (BM25_K1 + 1), 0);
      expect(postings.find((posting) => posting.lexeme === 'solar' && posting.chunk_id === found[1].id)?.tf).toBe(11);
      for (const entry of found) {
        expect(entry.score).toBeCloseTo(bm25(entry.id) / maximum, 10);
        expect(entry.score).toBeGreaterThan(0);
        expect(entry.score).toBeLessThan(1);
      }
      // Shorter chunks with the same term frequency score higher (length normalization).
      expect(found[2].content).toBe(CORPUS[2]);
      expect(lengths.get(found[2].id)).toBeLessThan(lengths.get(found[4].id) as number);
    });

    it('finds nothing for a query of stopwords or unknown words', async () => {
      const knowledgeBase = newKnowledgeBase();
      await indexAll(pgvector, knowledgeBase, [[newItem(), CORPUS]]);
      expect(await pgvector.search(knowledgeBase, search('the and of', 'full_text'))).toEqual([]);
      expect(await pgvector.search(knowledgeBase, search('zyzzyva', 'full_text'))).toEqual([]);
    });

    it('applies the threshold to the score and the limit', async () => {
      const knowledgeBase = newKnowledgeBase();
      await indexAll(pgvector, knowledgeBase, [[newItem(), CORPUS]]);
      const all = await pgvector.search(knowledgeBase, search('solar eclipse', 'full_text'));
      expect(await pgvector.search(knowledgeBase, search('solar eclipse', 'full_text', { limit: 2 }))).toEqual(all.slice(0, 2));
      const threshold = (all[1].score + all[2].score) / 2;
      expect(await pgvector.search(knowledgeBase, search('solar eclipse', 'full_text', { threshold }))).toEqual(all.slice(0, 2));
      expect(await pgvector.search(knowledgeBase, search('solar eclipse', 'full_text', { threshold: 1 }))).toEqual([]);
    });
  });

  const REFUNDS = [
    'Refunds take up to 14 days to arrive on your card.',
    'The office cat sleeps on the printer all afternoon.',
    'Our headquarters moved to a new building downtown.',
    'Shipping is free for orders above fifty euros.',
  ];

  describe.each([
    ['pgvector', () => pgvector],
    ['exact scan', () => exact],
  ])('vectors by %s', (_name, index) => {
    it('ranks by cosine similarity, scores in [0, 1], vector side only', async () => {
      const knowledgeBase = newKnowledgeBase();
      await indexAll(index(), knowledgeBase, [[newItem('faq.md'), REFUNDS]]);
      expect(knowledgeBase.embedding_dimensions).toBe(DIMENSIONS);
      const query = 'how long do refunds take';
      const found = await index().search(knowledgeBase, search(query, 'vector'));
      const queryVector = fakeEmbedding(query, DIMENSIONS);
      const cosine = (text: string) => fakeEmbedding(text, DIMENSIONS).reduce((sum, value, at) => sum + value * queryVector[at], 0);
      const expected = [...REFUNDS].sort((a, b) => cosine(b) - cosine(a));
      expect(found.map((entry) => entry.content)).toEqual(expected);
      expect(found[0].content).toBe(REFUNDS[0]);
      for (const entry of found) {
        expect(entry.score).toBeCloseTo(Math.min(1, Math.max(0, cosine(entry.content))), 5);
        expect(entry.scores).toEqual({ full_text: null, vector: entry.score });
      }
      const limited = await index().search(knowledgeBase, search(query, 'vector', { limit: 1, threshold: 0 }));
      expect(limited.map((entry) => entry.id)).toEqual([found[0].id]);
      expect(await index().search(knowledgeBase, search(query, 'vector', { threshold: found[0].score + 1e-6 }))).toEqual([]);
    });

    it("hybrid fuses both rankings, with each side's own score beside the fused one", async () => {
      const knowledgeBase = newKnowledgeBase();
      await indexAll(index(), knowledgeBase, [[newItem('faq.md'), REFUNDS]]);
      const found = await index().search(knowledgeBase, search('refunds take days', 'hybrid'));
      // First on both sides: the fused score is its maximum, 1.
      expect(found[0]).toMatchObject({ content: REFUNDS[0], score: 1 });
      expect(found[0].scores.full_text).toBeGreaterThan(0);
      expect(found[0].scores.vector).toBeGreaterThan(0);
      const fullText = await index().search(knowledgeBase, search('refunds take days', 'full_text'));
      const vector = await index().search(knowledgeBase, search('refunds take days', 'vector'));
      const ownScore = (list: typeof found, id: string) => list.find((entry) => entry.id === id)?.score ?? 0;
      for (const entry of found) {
        expect(entry.score).toBeGreaterThan(0);
        expect(entry.score).toBeLessThanOrEqual(1);
        expect(entry.scores.full_text).toBeCloseTo(ownScore(fullText, entry.id), 10);
        expect(entry.scores.vector).toBeCloseTo(ownScore(vector, entry.id), 5);
      }
      expect(found.map((entry) => entry.score)).toEqual([...found.map((entry) => entry.score)].sort((a, b) => b - a));
      // Chunks only the vector side found are in the answer too, with full_text 0.
      expect(found.some((entry) => entry.scores.full_text === 0)).toBe(true);
      expect(await index().search(knowledgeBase, search('refunds take days', 'hybrid', { limit: 2 }))).toEqual(found.slice(0, 2));
    });

    it("never answers another knowledge base's chunks", async () => {
      const mine = newKnowledgeBase();
      const theirs = newKnowledgeBase();
      await indexAll(index(), mine, [[newItem('mine.md'), [REFUNDS[0]]]]);
      await indexAll(index(), theirs, [[newItem('theirs.md'), REFUNDS]]);
      for (const type of ['full_text', 'vector', 'hybrid'] as const) {
        const found = await index().search(mine, search('refunds take days office cat printer', type));
        expect(found.map((entry) => entry.item_name)).toEqual(['mine.md']);
      }
    });
  });

  it('pgvector: a partial HNSW cosine index per dimension, used by the search', async () => {
    const knowledgeBase = newKnowledgeBase();
    await indexAll(pgvector, knowledgeBase, [[newItem(), REFUNDS]]);
    const indexes = (await dataSource.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'knowledge_base' AND indexname = $1`, [
      `IDX_chunk_vectors_hnsw_${DIMENSIONS}`,
    ])) as Array<{ indexdef: string }>;
    expect(indexes).toHaveLength(1);
    expect(indexes[0].indexdef).toMatch(/USING hnsw .*vector_cosine_ops.*WHERE \(dimensions = 64\)/);
    // Without sorts (a few rows are cheaper to sort), the planner answers the query with the partial index.
    const plan = (await dataSource.transaction(async (manager) => {
      await manager.query(`SET LOCAL enable_sort = off`);
      return manager.query(
        `EXPLAIN SELECT chunk_id FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND dimensions = ${DIMENSIONS}
          ORDER BY (embedding_vector::public.vector(${DIMENSIONS})) OPERATOR(public.<=>) $2::public.vector(${DIMENSIONS}) LIMIT 5`,
        [knowledgeBase.id, JSON.stringify(fakeEmbedding('refunds', DIMENSIONS))],
      );
    })) as Array<{ 'QUERY PLAN': string }>;
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain(`IDX_chunk_vectors_hnsw_${DIMENSIONS}`);
  });

  describe.each([
    ['pgvector', () => pgvector],
    ['exact scan', () => exact],
  ])('writing with %s', (_name, index) => {
    it('re-indexing an item replaces its chunks, postings and vectors', async () => {
      const knowledgeBase = newKnowledgeBase();
      const item = newItem();
      const other = newItem('other.md');
      await indexAll(index(), knowledgeBase, [
        [item, ['alpha bravo charlie', 'delta echo', 'foxtrot golf']],
        [other, ['hotel india']],
      ]);
      expect(await count('chunks', knowledgeBase.id)).toBe(4);
      await indexAll(index(), knowledgeBase, [[item, ['juliet kilo']]]);
      expect(await count('chunks', knowledgeBase.id)).toBe(2);
      expect(await count('chunk_vectors', knowledgeBase.id)).toBe(2);
      expect(await count('chunk_postings', knowledgeBase.id)).toBe(4);
      expect(await index().search(knowledgeBase, search('alpha', 'full_text'))).toEqual([]);
      expect((await index().search(knowledgeBase, search('juliet', 'full_text'))).map((entry) => entry.content)).toEqual(['juliet kilo']);
      expect((await index().search(knowledgeBase, search('hotel', 'full_text'))).map((entry) => entry.item_name)).toEqual(['other.md']);
    });

    it('runs complete in the indexing transaction, with the result; its failure writes nothing', async () => {
      const knowledgeBase = newKnowledgeBase();
      const item = newItem();
      const seen: unknown[] = [];
      const counter = new ChunkCounter(dataSource);
      const result = await index().indexItem(knowledgeBase, item, [chunk(0, 'one two'), chunk(1, 'three four')], async (indexed) => {
        seen.push(indexed);
        // A repository called from complete joins the indexing transaction: the chunks are already visible to it.
        seen.push(await counter.count(knowledgeBase.id));
      });
      expect(result).toEqual({ chunks: 2, dimensions: DIMENSIONS });
      expect(seen).toEqual([{ chunks: 2, dimensions: DIMENSIONS }, 2]);

      const failing = newKnowledgeBase();
      await expect(
        index().indexItem(failing, newItem(), [chunk(0, 'one two')], async () => {
          throw new Error('marking the item failed');
        }),
      ).rejects.toThrow('marking the item failed');
      expect(await count('chunks', failing.id)).toBe(0);
      expect(await count('chunk_postings', failing.id)).toBe(0);
      expect(await count('chunk_vectors', failing.id)).toBe(0);
    });

    it('a failing embedding (any batch) or an abort writes nothing and never completes', async () => {
      const knowledgeBase = newKnowledgeBase();
      const item = newItem();
      await indexAll(index(), knowledgeBase, [[item, ['kept before']]]);
      const complete = jest.fn(async () => undefined);
      // Five chunks are two batches of three; the provider fails.
      server.setModel(EMBEDDER_MODEL, { error: { status: 500 } });
      const chunks = ['a1', 'b2', 'c3', 'd4', 'e5'].map((text, position) => chunk(position, `word ${text}`));
      await expect(index().indexItem(knowledgeBase, item, chunks, complete)).rejects.toMatchObject({ code: 'provider_error' });
      server.setModel(EMBEDDER_MODEL, { embeddingDimensions: DIMENSIONS });
      const controller = new AbortController();
      controller.abort(new Error('cancelled'));
      await expect(index().indexItem(knowledgeBase, item, chunks, complete, controller.signal)).rejects.toThrow('cancelled');
      expect(complete).not.toHaveBeenCalled();
      // The earlier indexing of the item is left as it was.
      const [row] = (await dataSource.query(`SELECT content FROM knowledge_base.chunks WHERE knowledge_base_id = $1`, [
        knowledgeBase.id,
      ])) as Array<{ content: string }>;
      expect(row.content).toBe('kept before');
      expect(await count('chunks', knowledgeBase.id)).toBe(1);
    });

    it("refuses vectors of another dimension than the knowledge base's", async () => {
      const knowledgeBase = { ...newKnowledgeBase(), embedding_dimensions: 32 };
      await expect(index().indexItem(knowledgeBase, newItem(), [chunk(0, 'some text')], async () => undefined)).rejects.toMatchObject({
        code: 'provider_error',
        message: expect.stringContaining('64 dimensions where the knowledge base holds 32'),
      });
      expect(await count('chunks', knowledgeBase.id)).toBe(0);
    });

    it('removeChunks removes in batches until 0, only that knowledge base', async () => {
      const doomed = newKnowledgeBase();
      const kept = newKnowledgeBase();
      await indexAll(index(), doomed, [
        [newItem(), ['one', 'two', 'three']],
        [newItem(), ['four', 'five']],
      ]);
      await indexAll(index(), kept, [[newItem(), ['six']]]);
      const removed: number[] = [];
      while (removed.length < 10 && removed.at(-1) !== 0) removed.push(await index().removeChunks(doomed.id, 2));
      expect(removed).toEqual([2, 2, 1, 0]);
      for (const table of ['chunks', 'chunk_postings', 'chunk_vectors'] as const) expect(await count(table, doomed.id)).toBe(0);
      expect(await count('chunks', kept.id)).toBe(1);
      expect(await count('chunk_vectors', kept.id)).toBe(1);
      expect((await index().search(kept, search('six', 'hybrid'))).map((entry) => entry.content)).toEqual(['six']);
    });
  });

  it('hybrid fuses with the local weight for a knowledge base of the local model', async () => {
    const weights = new ChunkIndexService(chunks, embedder, pgvector.vectorPath, {
      ...OPTIONS,
      fusion: { ...OPTIONS.fusion, vector: 5 },
      localVectorWeight: 0,
    });
    const hosted = newKnowledgeBase();
    const local = { ...newKnowledgeBase(), embedding_model: 'universal-sentence-encoder-lite' };
    // The fake provider embeds both (the embedder's route is fixed); only the weights differ.
    const texts = ['refunds refunds refunds policy', 'refunds take 14 days to arrive', 'the office cat', 'refunds'];
    await indexAll(weights, hosted, [[newItem(), texts]]);
    await indexAll(weights, local, [[newItem(), texts]]);
    const order = async (knowledgeBase: IndexedKnowledgeBase, type: ChunkSearch['type']) =>
      (await weights.search(knowledgeBase, search('how long do refunds take to arrive', type))).map((entry) => entry.content);
    const fullText = await order(local, 'full_text');
    // A zero vector weight leaves BM25's order; chunks only the vector side found come after.
    expect((await order(local, 'hybrid')).slice(0, fullText.length)).toEqual(fullText);
    expect(await order(hosted, 'hybrid')).toEqual(expect.arrayContaining(fullText));
    expect((await order(hosted, 'hybrid'))[0]).toBe((await order(hosted, 'vector'))[0]);
  });

  it('an empty knowledge base answers every search type with nothing', async () => {
    const knowledgeBase = newKnowledgeBase();
    for (const type of ['full_text', 'vector', 'hybrid'] as const)
      expect(await pgvector.search(knowledgeBase, search('anything', type))).toEqual([]);
  });
});
