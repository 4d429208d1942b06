import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search index: chunks, their BM25 postings and their vectors. Written by hand (the index
 * is raw SQL with no entities). The pgvector column exists only where the server has the
 * `vector` extension; the service detects which path it runs at start (VectorSupport).
 */
export class CreateChunkIndex1795600000000 implements MigrationInterface {
  name = 'CreateChunkIndex1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "knowledge_base"."chunks" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "knowledge_base_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "item_id" uuid NOT NULL, "item_name" text NOT NULL, "position" integer NOT NULL, "content" text NOT NULL, "tokens" integer NOT NULL, "length" integer NOT NULL, CONSTRAINT "PK_chunks" PRIMARY KEY ("id"))`,
    );
    // N and avgdl of a knowledge base by an index-only scan; an item's chunks for re-indexing.
    await queryRunner.query(
      `CREATE INDEX "IDX_chunks_knowledge_base" ON "knowledge_base"."chunks" ("knowledge_base_id") INCLUDE ("length")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_chunks_item" ON "knowledge_base"."chunks" ("knowledge_base_id", "item_id")`);
    // One row per distinct lexeme of a chunk: df and BM25 terms come from index-only scans.
    await queryRunner.query(
      `CREATE TABLE "knowledge_base"."chunk_postings" ("knowledge_base_id" uuid NOT NULL, "lexeme" text NOT NULL, "chunk_id" uuid NOT NULL, "tf" integer NOT NULL, "length" integer NOT NULL)`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_chunk_postings_lexeme" ON "knowledge_base"."chunk_postings" ("knowledge_base_id", "lexeme") INCLUDE ("chunk_id", "tf", "length")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_chunk_postings_chunk" ON "knowledge_base"."chunk_postings" ("chunk_id")`);
    // `embedding`: little-endian float32 bytes, the exact path's; `embedding_vector`: pgvector's.
    await queryRunner.query(
      `CREATE TABLE "knowledge_base"."chunk_vectors" ("chunk_id" uuid NOT NULL, "knowledge_base_id" uuid NOT NULL, "dimensions" integer NOT NULL, "embedding" bytea, CONSTRAINT "PK_chunk_vectors" PRIMARY KEY ("chunk_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_chunk_vectors_knowledge_base" ON "knowledge_base"."chunk_vectors" ("knowledge_base_id", "dimensions")`,
    );
    const [available] = (await queryRunner.query(
      `SELECT count(*)::int AS count FROM pg_available_extensions WHERE name = 'vector'`,
    )) as Array<{ count: number }>;
    if (available.count > 0) {
      await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS vector SCHEMA public`);
      const [extension] = (await queryRunner.query(
        `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
      )) as Array<{ schema: string }>;
      // Of any dimension: HNSW indexes are per dimension, partial, made when one first appears.
      await queryRunner.query(`ALTER TABLE "knowledge_base"."chunk_vectors" ADD "embedding_vector" "${extension.schema}"."vector"`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "knowledge_base"."chunk_vectors"`);
    await queryRunner.query(`DROP TABLE "knowledge_base"."chunk_postings"`);
    await queryRunner.query(`DROP TABLE "knowledge_base"."chunks"`);
  }
}
