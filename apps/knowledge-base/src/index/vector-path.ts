/**
 * How the index stores and searches vectors, detected once at start: pgvector (an HNSW
 * cosine index per dimension, the extension's types qualified by its schema) when the
 * migration found the `vector` extension and added `chunk_vectors.embedding_vector`;
 * otherwise an exact cosine scan in the service over float32 bytes.
 */
export type VectorPath = { kind: 'pgvector'; schema: string } | { kind: 'exact' };

/** The most dimensions pgvector's HNSW index takes on `vector`; longer vectors are scanned exactly in SQL. */
export const HNSW_MAX_DIMENSIONS = 2000;
