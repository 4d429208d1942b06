import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The ledger's user-label filter (`GET /v1/private/requests?user=`) within a workspace. */
export class IndexRequestsByUser1764000000000 implements MigrationInterface {
  name = 'IndexRequestsByUser1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_requests_workspace_user" ON "invocation"."requests" ("workspace_id", "user_label") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "invocation"."IDX_requests_workspace_user"`);
  }
}
