import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The ledger's model and API key filters (`GET /v1/private/requests?model=…&api_key=…`) within a workspace, newest first. */
export class IndexRequestsByModelAndApiKey1795920000000 implements MigrationInterface {
  name = 'IndexRequestsByModelAndApiKey1795920000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_requests_workspace_model_generated_at" ON "invocation"."requests" ("workspace_id", "model", "generated_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_requests_workspace_api_key_generated_at" ON "invocation"."requests" ("workspace_id", "api_key_id", "generated_at") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "invocation"."IDX_requests_workspace_api_key_generated_at"`);
    await queryRunner.query(`DROP INDEX "invocation"."IDX_requests_workspace_model_generated_at"`);
  }
}
