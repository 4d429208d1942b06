import type { MigrationInterface, QueryRunner } from 'typeorm';

/** decisions.md "workflow step limit": steps one workflow run may execute, per plan (null = unlimited). */
const STEP_LIMITS: Array<[key: string, steps: number | null]> = [
  ['lite', 25],
  ['developer', 50],
  ['starter', 100],
  ['lifetime', 100],
  ['growth', 250],
  ['pro', 500],
  ['enterprise', null],
];

export class AddWorkflowStepLimit1765000200000 implements MigrationInterface {
  name = 'AddWorkflowStepLimit1765000200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "catalog"."plans" ADD "workflow_step_limit" integer`);
    for (const [key, steps] of STEP_LIMITS) {
      await queryRunner.query(`UPDATE "catalog"."plans" SET "workflow_step_limit" = $2 WHERE "key" = $1`, [key, steps]);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "catalog"."plans" DROP COLUMN "workflow_step_limit"`);
  }
}
