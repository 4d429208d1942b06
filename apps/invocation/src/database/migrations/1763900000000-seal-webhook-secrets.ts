import { SecretSealer } from '@waggle/webhooks';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook secrets are sealed at rest (AES-256-GCM under WEBHOOK_SECRET_KEY) and a rotated
 * secret keeps working until `previous_secret_expires_at`. Existing plain secrets are
 * sealed here, so the migrate step needs the same WEBHOOK_SECRET_KEY as the services.
 */
export class SealWebhookSecrets1763900000000 implements MigrationInterface {
  name = 'SealWebhookSecrets1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" ADD "webhook_secret_sealed" text`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" ADD "previous_webhook_secret_sealed" text`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" ADD "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE`);
    const rows = (await queryRunner.query(`SELECT "id", "webhook_secret" FROM "invocation"."prompt_deployments"`)) as Array<{
      id: string;
      webhook_secret: string;
    }>;
    if (rows.length > 0) {
      const sealer = SecretSealer.fromEnv({
        WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY,
        NODE_ENV: process.env.NODE_ENV ?? 'development',
      });
      for (const row of rows) {
        await queryRunner.query(`UPDATE "invocation"."prompt_deployments" SET "webhook_secret_sealed" = $1 WHERE "id" = $2`, [
          sealer.seal(row.webhook_secret),
          row.id,
        ]);
      }
    }
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" ALTER COLUMN "webhook_secret_sealed" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" DROP COLUMN "webhook_secret"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" ADD "webhook_secret" text`);
    const rows = (await queryRunner.query(`SELECT "id", "webhook_secret_sealed" FROM "invocation"."prompt_deployments"`)) as Array<{
      id: string;
      webhook_secret_sealed: string;
    }>;
    if (rows.length > 0) {
      const sealer = SecretSealer.fromEnv({
        WEBHOOK_SECRET_KEY: process.env.WEBHOOK_SECRET_KEY,
        NODE_ENV: process.env.NODE_ENV ?? 'development',
      });
      for (const row of rows) {
        await queryRunner.query(`UPDATE "invocation"."prompt_deployments" SET "webhook_secret" = $1 WHERE "id" = $2`, [
          sealer.open(row.webhook_secret_sealed),
          row.id,
        ]);
      }
    }
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" ALTER COLUMN "webhook_secret" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" DROP COLUMN "previous_secret_expires_at"`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" DROP COLUMN "previous_webhook_secret_sealed"`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_deployments" DROP COLUMN "webhook_secret_sealed"`);
  }
}
