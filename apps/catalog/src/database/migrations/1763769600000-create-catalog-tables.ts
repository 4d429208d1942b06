import type { MigrationInterface, QueryRunner } from 'typeorm';

const GIB = 1024 ** 3;

/** The plan defaults of decisions.md ("Limits the spec leaves open"); null = unlimited. */
const PLANS: Array<
  [key: string, name: string, perDay: number | null, toolCalls: number | null, concurrency: number | null, storage: number | null]
> = [
  ['lite', 'Lite', 100, 15, 1, GIB],
  ['developer', 'Developer', 1_000, 15, 1, GIB],
  ['starter', 'Starter', 5_000, 50, 3, 10 * GIB],
  ['lifetime', 'Lifetime', 5_000, 50, 3, 10 * GIB],
  ['growth', 'Growth', 20_000, null, 5, 100 * GIB],
  ['pro', 'Pro', 50_000, null, 5, 100 * GIB],
  ['enterprise', 'Enterprise', null, null, 20, null],
];

/** Generated from the entities with TypeORM's schema builder, plus the plan seed. */
export class CreateCatalogTables1763769600000 implements MigrationInterface {
  name = 'CreateCatalogTables1763769600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "catalog"."plans" ("key" text NOT NULL, "name" text NOT NULL, "rate_limit_per_day" integer, "provider_tool_calls_per_day" integer, "workflow_concurrency" integer, "asset_storage_bytes" bigint, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_81fbbbb81d6b241363f82c17b09" PRIMARY KEY ("key"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "catalog"."workspaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "plan_key" text NOT NULL, "language" text NOT NULL DEFAULT 'en', "limit_overrides" jsonb NOT NULL DEFAULT '{}', "deleted_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_workspaces_plan_key" ON "catalog"."workspaces" ("plan_key")`);
    await queryRunner.query(
      `CREATE TABLE "catalog"."api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "prefix" text NOT NULL, "key_hash" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_api_keys_workspace_id" ON "catalog"."api_keys" ("workspace_id")`);
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_api_keys_prefix" ON "catalog"."api_keys" ("prefix")`);
    await queryRunner.query(
      `CREATE TABLE "catalog"."catalog_versions" ("version" text NOT NULL, "model_count" integer NOT NULL, "loaded_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_b4c40c4bf237f968db5793d8982" PRIMARY KEY ("version"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "catalog"."models" ("id" text NOT NULL, "name" text NOT NULL, "slug" text NOT NULL, "provider" text NOT NULL, "provider_name" text NOT NULL, "provider_api" text NOT NULL, "maker" text NOT NULL, "maker_name" text NOT NULL, "provider_model_id" text NOT NULL, "model_type" text NOT NULL, "context_limit" integer NOT NULL, "is_vision" boolean NOT NULL, "is_reasoning" boolean NOT NULL, "is_tool_calling" boolean NOT NULL, "is_json_schema" boolean NOT NULL, "status" text NOT NULL, "catalog_version" text NOT NULL, CONSTRAINT "PK_ef9ed7160ea69013636466bf2d5" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "UQ_models_slug" ON "catalog"."models" ("slug")`);
    await queryRunner.query(
      `ALTER TABLE "catalog"."workspaces" ADD CONSTRAINT "FK_workspaces_plan_key" FOREIGN KEY ("plan_key") REFERENCES "catalog"."plans"("key") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "catalog"."api_keys" ADD CONSTRAINT "FK_api_keys_workspace_id" FOREIGN KEY ("workspace_id") REFERENCES "catalog"."workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    for (const [key, name, perDay, toolCalls, concurrency, storage] of PLANS) {
      await queryRunner.query(
        `INSERT INTO "catalog"."plans" ("key", "name", "rate_limit_per_day", "provider_tool_calls_per_day", "workflow_concurrency", "asset_storage_bytes") VALUES ($1, $2, $3, $4, $5, $6)`,
        [key, name, perDay, toolCalls, concurrency, storage],
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "catalog"."api_keys" DROP CONSTRAINT "FK_api_keys_workspace_id"`);
    await queryRunner.query(`ALTER TABLE "catalog"."workspaces" DROP CONSTRAINT "FK_workspaces_plan_key"`);
    await queryRunner.query(`DROP INDEX "catalog"."UQ_models_slug"`);
    await queryRunner.query(`DROP TABLE "catalog"."models"`);
    await queryRunner.query(`DROP TABLE "catalog"."catalog_versions"`);
    await queryRunner.query(`DROP INDEX "catalog"."UQ_api_keys_prefix"`);
    await queryRunner.query(`DROP INDEX "catalog"."IDX_api_keys_workspace_id"`);
    await queryRunner.query(`DROP TABLE "catalog"."api_keys"`);
    await queryRunner.query(`DROP INDEX "catalog"."IDX_workspaces_plan_key"`);
    await queryRunner.query(`DROP TABLE "catalog"."workspaces"`);
    await queryRunner.query(`DROP TABLE "catalog"."plans"`);
  }
}
