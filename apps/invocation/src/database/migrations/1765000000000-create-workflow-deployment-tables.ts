import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Workflow deployments, their variants and immutable versions (the definition as jsonb),
 * each deployment with its own sealed webhook secret, as the workflow deployment entities
 * describe them (written by hand after the prompt tables' shape; schema-drift checks it).
 */
export class CreateWorkflowDeploymentTables1765000000000 implements MigrationInterface {
  name = 'CreateWorkflowDeploymentTables1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "invocation"."workflow_deployments" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "name" text NOT NULL, "webhook_secret_sealed" text NOT NULL, "previous_webhook_secret_sealed" text, "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_workflow_deployments" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_workflow_deployments_workspace_name" ON "invocation"."workflow_deployments" ("workspace_id", "name")`,
    );
    await queryRunner.query(
      `CREATE TABLE "invocation"."workflow_versions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "variant_id" uuid NOT NULL, "version" integer NOT NULL, "definition" jsonb NOT NULL, "content_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_workflow_versions" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_workflow_versions_variant_version" ON "invocation"."workflow_versions" ("variant_id", "version")`,
    );
    await queryRunner.query(
      `CREATE TABLE "invocation"."workflow_variants" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "deployment_id" uuid NOT NULL, "name" text NOT NULL, "current_version_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_workflow_variants" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "UQ_workflow_variants_deployment_name" ON "invocation"."workflow_variants" ("deployment_id", "name")`,
    );
    await queryRunner.query(
      `ALTER TABLE "invocation"."workflow_variants" ADD CONSTRAINT "FK_workflow_variants_deployment_id" FOREIGN KEY ("deployment_id") REFERENCES "invocation"."workflow_deployments"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "invocation"."workflow_variants" ADD CONSTRAINT "FK_workflow_variants_current_version_id" FOREIGN KEY ("current_version_id") REFERENCES "invocation"."workflow_versions"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "invocation"."workflow_variants" DROP CONSTRAINT "FK_workflow_variants_current_version_id"`);
    await queryRunner.query(`ALTER TABLE "invocation"."workflow_variants" DROP CONSTRAINT "FK_workflow_variants_deployment_id"`);
    await queryRunner.query(`DROP INDEX "invocation"."UQ_workflow_variants_deployment_name"`);
    await queryRunner.query(`DROP TABLE "invocation"."workflow_variants"`);
    await queryRunner.query(`DROP INDEX "invocation"."UQ_workflow_versions_variant_version"`);
    await queryRunner.query(`DROP TABLE "invocation"."workflow_versions"`);
    await queryRunner.query(`DROP INDEX "invocation"."UQ_workflow_deployments_workspace_name"`);
    await queryRunner.query(`DROP TABLE "invocation"."workflow_deployments"`);
  }
}
