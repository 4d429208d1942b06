import { randomUUID } from 'node:crypto';
import type { KnowledgeBaseSearchChunk } from '@waggle/contracts';
import { WaggleException, type ErrorDetail } from '@waggle/errors';
import { LOCAL_EMBEDDING_MODELS } from '@waggle/providers';
import { inSpan } from '@waggle/telemetry';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChunkEmbedder } from './chunk-embedder';
import {
  ChunkIndex,
  type ChunkSearch,
  type IndexedItem,
  type IndexedItemResult,
  type IndexedKnowledgeBase,
  type ItemChunk,
} from './chunk-index';
import {
  BM25_B,
  BM25_K1,
  cosineScore,
  cosineSimilarity,
  decodeVector,
  encodeVector,
  normalizedBm25,
  reciprocalRankFusion,
  topByScore,
  type FusionWeights,
} from './scoring';
import { timedLeg, type SearchLegs } from './search-legs';
import { HNSW_MAX_DIMENSIONS, quoteIdentifier, type VectorPath } from './vector-path';

export interface SqlChunkIndexOptions {
  /** How the two sides of a hybrid search are fused. */
  fusion: FusionWeights;
  /** The vector weight instead of `fusion.vector` for knowledge bases embedded by a local (weak) model. */
  localVectorWeight: number;
  /** Chunks each side of a hybrid search proposes before fusion (at least the limit). */
  hybridCandidates: number;
}

interface Scored {
  id: string;
  score: number;
}

/** A chunk as a search reads it back (plain SQL: the chunk table has no entity). */
interface ChunkRow {
  id: string;
  item_id: string;
  item_name: string;
  content: string;
  position: number;
}

/** ChunkRow's columns, each once (the compiler holds it to ChunkRow; the row-types test to the migrated table). */
export const CHUNK_ROW_COLUMNS = Object.keys({
  id: true,
  item_id: true,
  item_name: true,
  content: true,
  position: true,
} satisfies Record<keyof ChunkRow, true>);

/** The text search configuration of chunks and queries alike. */
const TEXT_CONFIG = 'english';
const DICTIONARY = `'${TEXT_CONFIG}'::regconfig`;

/**
 * BM25 (k1 1.2, b 0.75, idf ln(1 + (N − df + 0.5)/(df + 0.5))) of the knowledge base's chunks
 * for the query's lexemes, N and avgdl of the knowledge base, df counted now from the postings
 * index. `maximum` is the most the query could score (see normalizedBm25). $1 knowledge base,
 * $2 query text, $3 limit, $4 chunk ids to score or null for all.
 */
const BM25_SQL = `
WITH stats AS (
  SELECT count(*)::float8 AS n, coalesce(avg(length), 0)::float8 AS avgdl
    FROM knowledge_base.chunks WHERE knowledge_base_id = $1
), query AS (
  SELECT t.lexeme, coalesce(array_length(t.positions, 1), 1) AS qtf FROM unnest(to_tsvector(${DICTIONARY}, $2)) t
), terms AS MATERIALIZED (
  SELECT q.lexeme, q.qtf * ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5)) AS weight
    FROM query q CROSS JOIN stats s
    CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM knowledge_base.chunk_postings p
                         WHERE p.knowledge_base_id = $1 AND p.lexeme = q.lexeme) d
   WHERE d.df > 0
)
SELECT p.chunk_id AS id,
       sum(t.weight * p.tf * ${BM25_K1 + 1} / (p.tf + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * p.length / greatest(s.avgdl, 1e-9))))::float8 AS score,
       (SELECT sum(weight) FROM terms)::float8 * ${BM25_K1 + 1} AS maximum
  FROM terms t
  JOIN knowledge_base.chunk_postings p ON p.knowledge_base_id = $1 AND p.lexeme = t.lexeme
  CROSS JOIN stats s
 WHERE $4::uuid[] IS NULL OR p.chunk_id = ANY($4::uuid[])
 GROUP BY p.chunk_id
 ORDER BY score DESC, p.chunk_id
 LIMIT $3`;

/**
 * The knowledge-base service's search index in its own schema, in raw SQL: chunks, one
 * postings row per distinct lexeme of a chunk (BM25 computed in SQL), and vectors (pgvector
 * HNSW, or an exact scan here; see VectorPath).
 */
export class SqlChunkIndex extends ChunkIndex {
  /** Dimensions whose HNSW index this process knows exists. */
  private readonly indexedDimensions = new Set<number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly embedder: ChunkEmbedder,
    readonly vectorPath: VectorPath,
    private readonly options: SqlChunkIndexOptions,
  ) {
    super();
  }

  async indexItem(
    knowledgeBase: IndexedKnowledgeBase,
    item: IndexedItem,
    chunks: readonly ItemChunk[],
    complete: (manager: EntityManager, result: IndexedItemResult) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<IndexedItemResult> {
    signal?.throwIfAborted();
    // Two phases, each a span of the item's ingestion: every chunk embedded (the batches in
    // order), then everything written in one transaction.
    const vectors = await inSpan('embed', { 'waggle.ingest.chunks': chunks.length }, async () =>
      chunks.length > 0
        ? this.embedder.embed(
            knowledgeBase.embedding_model,
            chunks.map((chunk) => chunk.content),
            signal,
          )
        : [],
    );
    const dimensions = this.checkVectors(knowledgeBase, vectors, chunks.length);
    return inSpan('index', { 'waggle.ingest.chunks': chunks.length }, async () => {
      if (vectors.length > 0) await this.ensureVectorIndex(dimensions);
      signal?.throwIfAborted();
      const ids = chunks.map(() => randomUUID());
      const result: IndexedItemResult = { chunks: chunks.length, dimensions };
      await this.dataSource.transaction(async (manager) => {
        await this.deleteItemRows(manager, knowledgeBase.id, item.id);
        if (chunks.length > 0) {
          await this.insertChunks(manager, knowledgeBase, item, chunks, ids);
          await this.insertVectors(manager, knowledgeBase.id, ids, vectors, dimensions);
        }
        signal?.throwIfAborted();
        await complete(manager, result);
      });
      return result;
    });
  }

  async search(knowledgeBase: IndexedKnowledgeBase, search: ChunkSearch): Promise<KnowledgeBaseSearchChunk[]> {
    let ranked: Array<{ id: string; score: number; fullText: number | null; vector: number | null }>;
    const legs = search.legs;
    if (search.type === 'full_text') {
      const found = await timedLeg(legs, 'keyword', () => this.fullTextRanking(knowledgeBase.id, search.query, search.limit, null));
      ranked = found.map(({ id, score }) => ({ id, score, fullText: score, vector: null }));
    } else if (search.type === 'vector') {
      const query = await this.queryVector(knowledgeBase, search.query, legs);
      const found = query ? await timedLeg(legs, 'vector', () => this.vectorRanking(knowledgeBase.id, query, search.limit)) : [];
      ranked = found.map(({ id, score }) => ({ id, score, fullText: null, vector: score }));
    } else {
      ranked = await this.hybridRanking(knowledgeBase, search);
    }
    const kept = ranked.filter((entry) => entry.score >= search.threshold).slice(0, search.limit);
    if (kept.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT ${CHUNK_ROW_COLUMNS.join(', ')} FROM knowledge_base.chunks WHERE knowledge_base_id = $1 AND id = ANY($2::uuid[])`,
      [knowledgeBase.id, kept.map((entry) => entry.id)],
    )) as ChunkRow[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return kept.flatMap((entry) => {
      const row = byId.get(entry.id);
      if (!row) return [];
      return [
        {
          id: row.id,
          knowledge_base_item_id: row.item_id,
          item_name: row.item_name,
          content: row.content,
          score: entry.score,
          scores: { full_text: entry.fullText, vector: entry.vector },
          position: row.position,
        },
      ];
    });
  }

  async removeChunks(knowledgeBaseId: string, limit: number): Promise<number> {
    const rows = (await this.dataSource.query(
      `WITH doomed AS MATERIALIZED (SELECT id FROM knowledge_base.chunks WHERE knowledge_base_id = $1 LIMIT $2),
            postings AS (DELETE FROM knowledge_base.chunk_postings WHERE chunk_id IN (SELECT id FROM doomed)),
            vectors AS (DELETE FROM knowledge_base.chunk_vectors WHERE chunk_id IN (SELECT id FROM doomed)),
            removed AS (DELETE FROM knowledge_base.chunks WHERE id IN (SELECT id FROM doomed) RETURNING id)
       SELECT count(*)::int AS count FROM removed`,
      [knowledgeBaseId, limit],
    )) as Array<{ count: number }>;
    return rows[0].count;
  }

  /** Both sides' candidates fused; each chunk kept gets the other side's score too. */
  private async hybridRanking(knowledgeBase: IndexedKnowledgeBase, search: ChunkSearch) {
    const candidates = Math.max(search.limit, this.options.hybridCandidates);
    const legs = search.legs;
    const [fullText, vector] = await Promise.all([
      timedLeg(legs, 'keyword', () => this.fullTextRanking(knowledgeBase.id, search.query, candidates, null)),
      this.queryVector(knowledgeBase, search.query, legs).then(async (query) => ({
        query,
        found: query ? await timedLeg(legs, 'vector', () => this.vectorRanking(knowledgeBase.id, query, candidates)) : [],
      })),
    ]);
    const local = LOCAL_EMBEDDING_MODELS[knowledgeBase.embedding_model] !== undefined;
    const fused = reciprocalRankFusion(
      fullText.map((entry) => entry.id),
      vector.found.map((entry) => entry.id),
      local ? { ...this.options.fusion, vector: this.options.localVectorWeight } : this.options.fusion,
    ).slice(0, search.limit);
    const fullTextScores = new Map(fullText.map((entry) => [entry.id, entry.score]));
    const vectorScores = new Map(vector.found.map((entry) => [entry.id, entry.score]));
    const missingFullText = fused.filter((entry) => !fullTextScores.has(entry.id)).map((entry) => entry.id);
    const missingVector = fused.filter((entry) => !vectorScores.has(entry.id)).map((entry) => entry.id);
    const query = vector.query;
    const [moreFullText, moreVector] = await Promise.all([
      missingFullText.length > 0
        ? timedLeg(legs, 'keyword', () => this.fullTextRanking(knowledgeBase.id, search.query, missingFullText.length, missingFullText))
        : [],
      missingVector.length > 0 && query ? timedLeg(legs, 'vector', () => this.vectorScores(knowledgeBase.id, query, missingVector)) : [],
    ]);
    for (const entry of moreFullText) fullTextScores.set(entry.id, entry.score);
    for (const entry of moreVector) vectorScores.set(entry.id, entry.score);
    return fused.map(({ id, score }) => ({ id, score, fullText: fullTextScores.get(id) ?? 0, vector: vectorScores.get(id) ?? 0 }));
  }

  /** BM25 ranking as fractions of the query's maximum attainable score, best first. */
  private async fullTextRanking(knowledgeBaseId: string, query: string, limit: number, only: string[] | null): Promise<Scored[]> {
    const rows = (await this.dataSource.query(BM25_SQL, [knowledgeBaseId, query, limit, only])) as Array<{
      id: string;
      score: number;
      maximum: number;
    }>;
    return rows.map((row) => ({ id: row.id, score: normalizedBm25(row.score, row.maximum) }));
  }

  /** The query's vector, or null when the knowledge base has no vectors yet. */
  private async queryVector(knowledgeBase: IndexedKnowledgeBase, query: string, legs?: SearchLegs): Promise<number[] | null> {
    if (knowledgeBase.embedding_dimensions === null) return null;
    const [vector] = await timedLeg(legs, 'embed', () => this.embedder.embed(knowledgeBase.embedding_model, [query]));
    this.checkVectors(knowledgeBase, [vector], 1);
    return vector;
  }

  /** The nearest chunks by cosine, scores clipped to [0, 1], best first. */
  private async vectorRanking(knowledgeBaseId: string, query: number[], limit: number): Promise<Scored[]> {
    const dimensions = query.length;
    if (this.vectorPath.kind === 'exact') {
      const rows = (await this.dataSource.query(
        `SELECT chunk_id AS id, embedding FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND dimensions = $2`,
        [knowledgeBaseId, dimensions],
      )) as Array<{ id: string; embedding: Buffer }>;
      return topByScore(
        rows.map((row) => ({ id: row.id, score: cosineScore(cosineSimilarity(query, decodeVector(row.embedding))) })),
        limit,
      );
    }
    const { column, operator } = this.pgvectorTerms(dimensions);
    // relaxed_order: the HNSW scan goes on past ef_search until `limit` chunks of this
    // knowledge base are found (pgvector 0.8), in nearly sorted order, sorted again here.
    const rows = await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`, [
        String(Math.min(1000, Math.max(40, limit))),
      ]);
      return (await manager.query(
        `SELECT chunk_id AS id, (${column} ${operator} $2::${this.vectorType(dimensions)})::float8 AS distance
           FROM knowledge_base.chunk_vectors
          WHERE knowledge_base_id = $1 AND dimensions = ${dimensions}
          ORDER BY ${column} ${operator} $2::${this.vectorType(dimensions)}
          LIMIT $3`,
        [knowledgeBaseId, JSON.stringify(query), limit],
      )) as Array<{ id: string; distance: number }>;
    });
    return topByScore(
      rows.map((row) => ({ id: row.id, score: cosineScore(1 - row.distance) })),
      limit,
    );
  }

  /** Cosine scores of the given chunks. */
  private async vectorScores(knowledgeBaseId: string, query: number[], ids: string[]): Promise<Scored[]> {
    if (this.vectorPath.kind === 'exact') {
      const rows = (await this.dataSource.query(
        `SELECT chunk_id AS id, embedding FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND chunk_id = ANY($2::uuid[])`,
        [knowledgeBaseId, ids],
      )) as Array<{ id: string; embedding: Buffer }>;
      return rows.map((row) => ({ id: row.id, score: cosineScore(cosineSimilarity(query, decodeVector(row.embedding))) }));
    }
    const { column, operator } = this.pgvectorTerms(query.length);
    const rows = (await this.dataSource.query(
      `SELECT chunk_id AS id, (${column} ${operator} $2::${this.vectorType(query.length)})::float8 AS distance
         FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND chunk_id = ANY($3::uuid[])`,
      [knowledgeBaseId, JSON.stringify(query), ids],
    )) as Array<{ id: string; distance: number }>;
    return rows.map((row) => ({ id: row.id, score: cosineScore(1 - row.distance) }));
  }

  private vectorType(dimensions: number): string {
    const schema = this.vectorPath.kind === 'pgvector' ? this.vectorPath.schema : 'public';
    return `${quoteIdentifier(schema)}.vector(${dimensions})`;
  }

  /** The indexed expression (as its partial HNSW index spells it) and the cosine-distance operator. */
  private pgvectorTerms(dimensions: number): { column: string; operator: string } {
    const schema = this.vectorPath.kind === 'pgvector' ? this.vectorPath.schema : 'public';
    return { column: `(embedding_vector::${this.vectorType(dimensions)})`, operator: `OPERATOR(${quoteIdentifier(schema)}.<=>)` };
  }

  /**
   * The HNSW cosine index of one dimension, a partial expression index made when the
   * dimension first appears, under an advisory lock so replicas do not race to create it.
   */
  private async ensureVectorIndex(dimensions: number): Promise<void> {
    if (this.vectorPath.kind !== 'pgvector' || dimensions > HNSW_MAX_DIMENSIONS || this.indexedDimensions.has(dimensions)) return;
    const { column } = this.pgvectorTerms(dimensions);
    const operatorClass = `${quoteIdentifier(this.vectorPath.schema)}.vector_cosine_ops`;
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('knowledge_base.chunk_vectors.hnsw'))`);
      await manager.query(
        `CREATE INDEX IF NOT EXISTS "IDX_chunk_vectors_hnsw_${dimensions}" ON knowledge_base.chunk_vectors USING hnsw (${column} ${operatorClass}) WHERE dimensions = ${dimensions}`,
      );
    });
    this.indexedDimensions.add(dimensions);
  }

  /** One vector per chunk, all of the knowledge base's dimension, all finite. Answers the dimension. */
  private checkVectors(knowledgeBase: IndexedKnowledgeBase, vectors: number[][], expected: number): number {
    const dimensions = vectors[0]?.length ?? knowledgeBase.embedding_dimensions ?? 0;
    const model = knowledgeBase.embedding_model;
    const fail = (text: ErrorDetail) => {
      throw new WaggleException('provider_error', { ...text, details: { model } });
    };
    if (vectors.length !== expected) fail({ detail: 'embedding_vector_count', params: { model, count: vectors.length, expected } });
    for (const vector of vectors) {
      if (vector.length === 0 || vector.length !== dimensions)
        fail({ detail: 'embedding_vector_dimensions', params: { model, dimensions: vector.length, expected: dimensions } });
      if (!vector.every(Number.isFinite)) fail({ detail: 'embedding_vector_not_finite', params: { model } });
    }
    if (knowledgeBase.embedding_dimensions !== null && vectors.length > 0 && dimensions !== knowledgeBase.embedding_dimensions) {
      fail({ detail: 'embedding_dimensions_changed', params: { model, dimensions, expected: String(knowledgeBase.embedding_dimensions) } });
    }
    return dimensions;
  }

  private async deleteItemRows(manager: EntityManager, knowledgeBaseId: string, itemId: string): Promise<void> {
    await manager.query(
      `WITH doomed AS MATERIALIZED (SELECT id FROM knowledge_base.chunks WHERE knowledge_base_id = $1 AND item_id = $2),
            postings AS (DELETE FROM knowledge_base.chunk_postings WHERE chunk_id IN (SELECT id FROM doomed)),
            vectors AS (DELETE FROM knowledge_base.chunk_vectors WHERE chunk_id IN (SELECT id FROM doomed))
       DELETE FROM knowledge_base.chunks WHERE id IN (SELECT id FROM doomed)`,
      [knowledgeBaseId, itemId],
    );
  }

  /** Chunks and their postings in one statement, each chunk's text parsed once by to_tsvector. */
  private async insertChunks(
    manager: EntityManager,
    knowledgeBase: IndexedKnowledgeBase,
    item: IndexedItem,
    chunks: readonly ItemChunk[],
    ids: string[],
  ): Promise<void> {
    await manager.query(
      `WITH input AS MATERIALIZED (
         SELECT x.id, x.position, x.content, x.tokens, to_tsvector(${DICTIONARY}, x.content) AS document
           FROM unnest($5::uuid[], $6::int[], $7::text[], $8::int[]) AS x(id, position, content, tokens)
       ), terms AS MATERIALIZED (
         SELECT i.id, t.lexeme, coalesce(array_length(t.positions, 1), 1) AS tf FROM input i CROSS JOIN LATERAL unnest(i.document) t
       ), lengths AS MATERIALIZED (
         SELECT i.id, coalesce((SELECT sum(terms.tf) FROM terms WHERE terms.id = i.id), 0)::int AS length FROM input i
       ), chunks AS (
         INSERT INTO knowledge_base.chunks (id, knowledge_base_id, workspace_id, item_id, item_name, position, content, tokens, length)
         SELECT i.id, $1, $2, $3, $4, i.position, i.content, i.tokens, l.length FROM input i JOIN lengths l ON l.id = i.id
       )
       INSERT INTO knowledge_base.chunk_postings (knowledge_base_id, lexeme, chunk_id, tf, length)
       SELECT $1, terms.lexeme, terms.id, terms.tf, l.length FROM terms JOIN lengths l ON l.id = terms.id`,
      [
        knowledgeBase.id,
        knowledgeBase.workspace_id,
        item.id,
        item.name,
        ids,
        chunks.map((chunk) => chunk.position),
        chunks.map((chunk) => chunk.content),
        chunks.map((chunk) => chunk.tokens),
      ],
    );
  }

  private async insertVectors(
    manager: EntityManager,
    knowledgeBaseId: string,
    ids: string[],
    vectors: number[][],
    dimensions: number,
  ): Promise<void> {
    if (this.vectorPath.kind === 'pgvector') {
      await manager.query(
        `INSERT INTO knowledge_base.chunk_vectors (chunk_id, knowledge_base_id, dimensions, embedding_vector)
         SELECT x.id, $1, $2, x.vector::${quoteIdentifier(this.vectorPath.schema)}.vector FROM unnest($3::uuid[], $4::text[]) AS x(id, vector)`,
        [knowledgeBaseId, dimensions, ids, vectors.map((vector) => JSON.stringify(vector))],
      );
      return;
    }
    await manager.query(
      `INSERT INTO knowledge_base.chunk_vectors (chunk_id, knowledge_base_id, dimensions, embedding)
       SELECT x.id, $1, $2, x.embedding FROM unnest($3::uuid[], $4::bytea[]) AS x(id, embedding)`,
      [knowledgeBaseId, dimensions, ids, vectors.map(encodeVector)],
    );
  }
}
