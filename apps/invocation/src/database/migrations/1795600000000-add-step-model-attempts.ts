import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A model step's calls (model, error code, duration), when a fallback could answer or it took more than one (D41). */
export class AddStepModelAttempts1795600000000 implements MigrationInterface {
  name = 'AddStepModelAttempts1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "invocation"."workflow_step_runs" ADD "model_attempts" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "invocation"."workflow_step_runs" DROP COLUMN "model_attempts"`);
  }
}
