import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The request ledger: generated from RequestRecordEntity, plus a GIN index for metadata filters. */
export class CreateRequestLedger1763775600000 implements MigrationInterface {
  name = 'CreateRequestLedger1763775600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "invocation"."requests" ("id" text NOT NULL, "workspace_id" uuid NOT NULL, "request_type" text NOT NULL, "requestable_type" text NOT NULL, "requestable_id" uuid NOT NULL, "deployment" text, "variant" text, "variant_id" uuid, "version_id" uuid, "version" integer, "model" text, "status" text NOT NULL, "message" text, "metadata" jsonb NOT NULL DEFAULT '{}', "user_label" text, "generated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE, "ended_at" TIMESTAMP WITH TIME ZONE, "duration_ms" integer, "usage" jsonb, "data" jsonb, CONSTRAINT "PK_0428f484e96f9e6a55955f29b5f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_requests_workspace_generated_at" ON "invocation"."requests" ("workspace_id", "generated_at")`,
    );
    // Filtering by metadata key and value uses `metadata @> '{"key": value}'`.
    await queryRunner.query(`CREATE INDEX "IDX_requests_metadata" ON "invocation"."requests" USING GIN ("metadata" jsonb_path_ops)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "invocation"."IDX_requests_metadata"`);
    await queryRunner.query(`DROP INDEX "invocation"."IDX_requests_workspace_generated_at"`);
    await queryRunner.query(`DROP TABLE "invocation"."requests"`);
  }
}
