import type { DataSource } from 'typeorm';

/**
 * How the index stores and searches vectors, detected once at start: pgvector (an HNSW
 * cosine index per dimension, the extension's types qualified by its schema) when the
 * migration found the `vector` extension and added `chunk_vectors.embedding_vector`;
 * otherwise an exact cosine scan in the service over float32 bytes.
 */
export type VectorPath = { kind: 'pgvector'; schema: string } | { kind: 'exact' };

/** The most dimensions pgvector's HNSW index takes on `vector`; longer vectors are scanned exactly in SQL. */
export const HNSW_MAX_DIMENSIONS = 2000;

export async function detectVectorPath(dataSource: DataSource): Promise<VectorPath> {
  const rows = (await dataSource.query(
    `SELECT n.nspname AS schema
       FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'vector'
        AND EXISTS (SELECT 1 FROM information_schema.columns
                     WHERE table_schema = 'knowledge_base' AND table_name = 'chunk_vectors' AND column_name = 'embedding_vector')`,
  )) as Array<{ schema: string }>;
  return rows.length > 0 ? { kind: 'pgvector', schema: rows[0].schema } : { kind: 'exact' };
}

/** A PostgreSQL identifier in double quotes. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
