import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql, type SqlStatement } from '@waggle/database';
import type { DataSource } from 'typeorm';
import type { IndexedItem, IndexedKnowledgeBase, ItemChunk } from './chunk-index';
import { BM25_B, BM25_K1, decodeVector, encodeVector } from './scoring';
import type { VectorPath } from './vector-path';

/** A chunk as a search reads it back (plain SQL: the chunk tables have no entity). */
export interface ChunkRow {
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

/** A chunk's id and a score or distance. */
interface Ranked {
  id: string;
  score: number;
}

/** The text search configuration of chunks and queries alike. */
const DICTIONARY = `'english'::regconfig`;

/**
 * What a pgvector statement names besides its parameters: the schema the extension lives in
 * (found at start), and, for the statements that must match a per-dimension HNSW index, the
 * vectors' dimension, which is a type modifier (`vector(64)`) and so can be no parameter.
 */
interface VectorTerms {
  schema: string;
  dimensions: number;
}

/** A declared pgvector statement, and the same statement for the server's schema and a dimension. */
interface VectorStatement<Row> extends SqlStatement<Row> {
  at(terms: VectorTerms): SqlStatement<Row>;
}

/** A PostgreSQL identifier in double quotes. */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A pgvector statement, written with `{vector}` for the extension's schema and `{dimensions}`
 * for the vectors' dimension. It is declared (snapshot, preparation check) as it runs for the
 * extension in `public` and vectors of 1 dimension; `at` gives the one a search or a write
 * runs, made once per schema and dimension.
 */
function vectorSql<Row = never>(template: string): VectorStatement<Row> {
  const made = new Map<string, SqlStatement<Row>>();
  const at = ({ schema, dimensions }: VectorTerms): SqlStatement<Row> => {
    const key = `${schema}\n${dimensions}`;
    let statement = made.get(key);
    if (!statement) {
      statement = sql<Row>(template.replaceAll('{vector}', quoteIdentifier(schema)).replaceAll('{dimensions}', String(dimensions)));
      made.set(key, statement);
    }
    return statement;
  };
  return { ...at({ schema: 'public', dimensions: 1 }), at };
}

const SQL = defineSql(__filename, {
  vectorSchema: sql<{ schema: string }>(`
    SELECT n.nspname AS schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'vector'
      AND EXISTS (SELECT 1 FROM information_schema.columns
                  WHERE table_schema = 'knowledge_base' AND table_name = 'chunk_vectors' AND column_name = 'embedding_vector')`),
  /** $1 knowledge base, $2 item. */
  deleteItemChunks: sql(`
    WITH doomed AS MATERIALIZED (SELECT id FROM knowledge_base.chunks WHERE knowledge_base_id = $1 AND item_id = $2),
         postings AS (DELETE FROM knowledge_base.chunk_postings WHERE chunk_id IN (SELECT id FROM doomed)),
         vectors AS (DELETE FROM knowledge_base.chunk_vectors WHERE chunk_id IN (SELECT id FROM doomed))
    DELETE FROM knowledge_base.chunks WHERE id IN (SELECT id FROM doomed)`),
  /**
   * Chunks and their postings in one statement, each chunk's text parsed once by to_tsvector.
   * $1 knowledge base, $2 workspace, $3 item, $4 item name, $5… the chunks' ids, positions, contents, tokens.
   */
  insertChunks: sql(`
    WITH input AS MATERIALIZED (
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
    SELECT $1, terms.lexeme, terms.id, terms.tf, l.length FROM terms JOIN lengths l ON l.id = terms.id`),
  /** $1 knowledge base, $2 dimensions, $3 chunk ids, $4 their vectors as float32 bytes. */
  insertEmbeddings: sql(`
    INSERT INTO knowledge_base.chunk_vectors (chunk_id, knowledge_base_id, dimensions, embedding)
    SELECT x.id, $1, $2, x.embedding FROM unnest($3::uuid[], $4::bytea[]) AS x(id, embedding)`),
  /** $1 knowledge base, $2 dimensions, $3 chunk ids, $4 their vectors as JSON arrays. */
  insertVectors: vectorSql(`
    INSERT INTO knowledge_base.chunk_vectors (chunk_id, knowledge_base_id, dimensions, embedding_vector)
    SELECT x.id, $1, $2, x.vector::{vector}.vector FROM unnest($3::uuid[], $4::text[]) AS x(id, vector)`),
  /**
   * BM25 (k1 1.2, b 0.75, idf ln(1 + (N − df + 0.5)/(df + 0.5))) of the knowledge base's chunks
   * for the query's lexemes, N and avgdl of the knowledge base, df counted now from the postings
   * index. `maximum` is the most the query could score (see normalizedBm25). $1 knowledge base,
   * $2 query text, $3 limit, $4 chunk ids to score or null for all.
   */
  bm25: sql<Ranked & { maximum: number }>(`
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
     LIMIT $3`),
  /** $1 knowledge base, $2 chunk ids. */
  chunks: sql<ChunkRow>(`
    SELECT ${CHUNK_ROW_COLUMNS.join(', ')} FROM knowledge_base.chunks WHERE knowledge_base_id = $1 AND id = ANY($2::uuid[])`),
  /** $1 knowledge base, $2 dimensions. */
  embeddingsOf: sql<{ id: string; embedding: Buffer }>(`
    SELECT chunk_id AS id, embedding FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND dimensions = $2`),
  /** $1 knowledge base, $2 chunk ids. */
  embeddingsById: sql<{ id: string; embedding: Buffer }>(`
    SELECT chunk_id AS id, embedding FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND chunk_id = ANY($2::uuid[])`),
  /** For the rest of the transaction: relaxed_order makes the HNSW scan go on past ef_search ($1) until the LIMIT is met (pgvector 0.8). */
  hnswScan: sql(`SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`),
  /** The nearest chunks by cosine distance, through the dimension's partial HNSW index. $1 knowledge base, $2 query vector, $3 limit. */
  nearestVectors: vectorSql<{ id: string; distance: number }>(`
    SELECT chunk_id AS id, ((embedding_vector::{vector}.vector({dimensions})) OPERATOR({vector}.<=>) $2::{vector}.vector({dimensions}))::float8 AS distance
    FROM knowledge_base.chunk_vectors
    WHERE knowledge_base_id = $1 AND dimensions = {dimensions}
    ORDER BY (embedding_vector::{vector}.vector({dimensions})) OPERATOR({vector}.<=>) $2::{vector}.vector({dimensions})
    LIMIT $3`),
  /** $1 knowledge base, $2 query vector, $3 chunk ids. */
  vectorDistances: vectorSql<{ id: string; distance: number }>(`
    SELECT chunk_id AS id, (embedding_vector OPERATOR({vector}.<=>) $2::{vector}.vector)::float8 AS distance
    FROM knowledge_base.chunk_vectors WHERE knowledge_base_id = $1 AND chunk_id = ANY($3::uuid[])`),
  lockVectorIndexes: sql(`SELECT pg_advisory_xact_lock(hashtext('knowledge_base.chunk_vectors.hnsw'))`),
  /** The HNSW cosine index of one dimension: a partial expression index. */
  createVectorIndex: vectorSql(`
    CREATE INDEX IF NOT EXISTS "IDX_chunk_vectors_hnsw_{dimensions}" ON knowledge_base.chunk_vectors
    USING hnsw ((embedding_vector::{vector}.vector({dimensions})) {vector}.vector_cosine_ops) WHERE dimensions = {dimensions}`),
  /** Up to $2 chunks of knowledge base $1 with their postings and vectors; answers how many. */
  removeChunks: sql<{ count: number }>(`
    WITH doomed AS MATERIALIZED (SELECT id FROM knowledge_base.chunks WHERE knowledge_base_id = $1 LIMIT $2),
         postings AS (DELETE FROM knowledge_base.chunk_postings WHERE chunk_id IN (SELECT id FROM doomed)),
         vectors AS (DELETE FROM knowledge_base.chunk_vectors WHERE chunk_id IN (SELECT id FROM doomed)),
         removed AS (DELETE FROM knowledge_base.chunks WHERE id IN (SELECT id FROM doomed) RETURNING id)
    SELECT count(*)::int AS count FROM removed`),
});

function decodedEmbedding(row: { id: string; embedding: Buffer }): { id: string; vector: Float32Array } {
  return { id: row.id, vector: decodeVector(row.embedding) };
}

/**
 * Every query of the search index, in raw SQL: chunks, one postings row per distinct lexeme of
 * a chunk (BM25 computed in SQL), and vectors, stored as the VectorPath says (pgvector, or
 * float32 bytes for an exact scan).
 */
@Injectable()
export class ChunksRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /**
   * pgvector (its `vector` type qualified by the extension's schema) when the migration found
   * the extension and added `chunk_vectors.embedding_vector`; otherwise an exact scan.
   */
  async detectVectorPath(): Promise<VectorPath> {
    const row = await this.row(SQL.vectorSchema);
    return row ? { kind: 'pgvector', schema: row.schema } : { kind: 'exact' };
  }

  /**
   * Replaces whatever the item has in the index with these chunks, their postings and their
   * vectors (`vectors[i]` is chunk i's, all of one dimension), in one transaction (the
   * caller's, if one is open).
   */
  replaceItem(
    path: VectorPath,
    knowledgeBase: IndexedKnowledgeBase,
    item: IndexedItem,
    chunks: readonly ItemChunk[],
    vectors: readonly number[][],
  ): Promise<void> {
    return this.transaction(async () => {
      await this.execute(SQL.deleteItemChunks, [knowledgeBase.id, item.id]);
      if (chunks.length === 0) return;
      const ids = chunks.map(() => randomUUID());
      const dimensions = vectors[0].length;
      await this.execute(SQL.insertChunks, [
        knowledgeBase.id,
        knowledgeBase.workspace_id,
        item.id,
        item.name,
        ids,
        chunks.map((chunk) => chunk.position),
        chunks.map((chunk) => chunk.content),
        chunks.map((chunk) => chunk.tokens),
      ]);
      if (path.kind === 'pgvector')
        await this.execute(SQL.insertVectors.at({ schema: path.schema, dimensions }), [
          knowledgeBase.id,
          dimensions,
          ids,
          vectors.map((vector) => JSON.stringify(vector)),
        ]);
      else await this.execute(SQL.insertEmbeddings, [knowledgeBase.id, dimensions, ids, vectors.map(encodeVector)]);
    });
  }

  /** BM25 of the best `limit` chunks (of `only`, unless null) for the query, with the most the query could score; best first. */
  bm25(knowledgeBaseId: string, query: string, limit: number, only: string[] | null): Promise<Array<Ranked & { maximum: number }>> {
    return this.rows(SQL.bm25, [knowledgeBaseId, query, limit, only]);
  }

  /** The knowledge base's chunks with these ids (in no order). */
  chunks(knowledgeBaseId: string, ids: string[]): Promise<ChunkRow[]> {
    return this.rows(SQL.chunks, [knowledgeBaseId, ids]);
  }

  /** Exact path: every vector of the knowledge base of this dimension. */
  async embeddingsOf(knowledgeBaseId: string, dimensions: number): Promise<Array<{ id: string; vector: Float32Array }>> {
    return (await this.rows(SQL.embeddingsOf, [knowledgeBaseId, dimensions])).map(decodedEmbedding);
  }

  /** Exact path: the vectors of these chunks. */
  async embeddingsById(knowledgeBaseId: string, ids: string[]): Promise<Array<{ id: string; vector: Float32Array }>> {
    return (await this.rows(SQL.embeddingsById, [knowledgeBaseId, ids])).map(decodedEmbedding);
  }

  /** pgvector: the `limit` chunks nearest the query by cosine distance, nearly in order, through the HNSW index. */
  nearestVectors(
    schema: string,
    knowledgeBaseId: string,
    query: number[],
    limit: number,
  ): Promise<Array<{ id: string; distance: number }>> {
    return this.transaction(async () => {
      await this.execute(SQL.hnswScan, [String(Math.min(1000, Math.max(40, limit)))]);
      return this.rows(SQL.nearestVectors.at({ schema, dimensions: query.length }), [knowledgeBaseId, JSON.stringify(query), limit]);
    });
  }

  /** pgvector: the cosine distance of each of these chunks to the query. */
  vectorDistances(
    schema: string,
    knowledgeBaseId: string,
    query: number[],
    ids: string[],
  ): Promise<Array<{ id: string; distance: number }>> {
    return this.rows(SQL.vectorDistances.at({ schema, dimensions: query.length }), [knowledgeBaseId, JSON.stringify(query), ids]);
  }

  /**
   * pgvector: the HNSW cosine index of one dimension, a partial expression index made when the
   * dimension first appears, under an advisory lock so replicas do not race to create it.
   */
  createVectorIndex(schema: string, dimensions: number): Promise<void> {
    return this.transaction(async () => {
      await this.execute(SQL.lockVectorIndexes);
      await this.execute(SQL.createVectorIndex.at({ schema, dimensions }));
    });
  }

  /**
   * Removes up to `limit` chunks of the knowledge base with their postings and vectors, in one
   * statement; answers how many it removed (0: nothing is left).
   */
  async removeChunks(knowledgeBaseId: string, limit: number): Promise<number> {
    const [removed] = await this.rows(SQL.removeChunks, [knowledgeBaseId, limit]);
    return removed.count;
  }
}
