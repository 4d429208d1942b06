import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Generated from the prompt entities with TypeORM's schema builder. */
export class CreatePromptTables1763772000000 implements MigrationInterface {
  name = 'CreatePromptTables1763772000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "invocation"."prompt_deployments" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "name" text NOT NULL, "webhook_secret" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_75ed79949004f6b313801cfe701" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_prompt_deployments_workspace_name" ON "invocation"."prompt_deployments" ("workspace_id", "name")`,
    );
    await queryRunner.query(
      `CREATE TABLE "invocation"."prompt_versions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "variant_id" uuid NOT NULL, "version" integer NOT NULL, "model" text NOT NULL, "messages" jsonb NOT NULL, "params" jsonb NOT NULL, "variables" jsonb NOT NULL, "image_inputs" jsonb NOT NULL, "content_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5411972c2e9c63bd40530b80545" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_prompt_versions_variant_version" ON "invocation"."prompt_versions" ("variant_id", "version")`,
    );
    await queryRunner.query(
      `CREATE TABLE "invocation"."prompt_variants" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "deployment_id" uuid NOT NULL, "name" text NOT NULL, "current_version_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_29b168f0d76d8a65977c9cdbe84" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_prompt_variants_deployment_name" ON "invocation"."prompt_variants" ("deployment_id", "name")`,
    );
    await queryRunner.query(
      `ALTER TABLE "invocation"."prompt_variants" ADD CONSTRAINT "FK_prompt_variants_deployment_id" FOREIGN KEY ("deployment_id") REFERENCES "invocation"."prompt_deployments"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "invocation"."prompt_variants" ADD CONSTRAINT "FK_prompt_variants_current_version_id" FOREIGN KEY ("current_version_id") REFERENCES "invocation"."prompt_versions"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_variants" DROP CONSTRAINT "FK_prompt_variants_current_version_id"`);
    await queryRunner.query(`ALTER TABLE "invocation"."prompt_variants" DROP CONSTRAINT "FK_prompt_variants_deployment_id"`);
    await queryRunner.query(`DROP INDEX "invocation"."UQ_prompt_variants_deployment_name"`);
    await queryRunner.query(`DROP TABLE "invocation"."prompt_variants"`);
    await queryRunner.query(`DROP INDEX "invocation"."UQ_prompt_versions_variant_version"`);
    await queryRunner.query(`DROP TABLE "invocation"."prompt_versions"`);
    await queryRunner.query(`DROP INDEX "invocation"."UQ_prompt_deployments_workspace_name"`);
    await queryRunner.query(`DROP TABLE "invocation"."prompt_deployments"`);
  }
}
