import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The delivery log: generated from DeliveryEntity and DeliveryAttemptEntity. */
export class CreateDeliveryLog1763784000000 implements MigrationInterface {
  name = 'CreateDeliveryLog1763784000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "callback_dispatcher"."deliveries" ("id" text NOT NULL, "workspace_id" uuid NOT NULL, "request_id" text NOT NULL, "event_type" text NOT NULL, "url" text NOT NULL, "owner_kind" text NOT NULL, "owner_id" uuid NOT NULL, "body" json NOT NULL, "status" text NOT NULL, "attempt_count" integer NOT NULL DEFAULT '0', "job_id" text NOT NULL, "job_attempt_count" integer NOT NULL DEFAULT '0', "next_attempt_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a6ef225c5c5f0974e503bfb731f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_deliveries_request_id" ON "callback_dispatcher"."deliveries" ("request_id")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_deliveries_workspace_created_at" ON "callback_dispatcher"."deliveries" ("workspace_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE TABLE "callback_dispatcher"."delivery_attempts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "delivery_id" text NOT NULL, "attempt" integer NOT NULL, "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL, "status_code" integer, "latency_ms" integer NOT NULL, "error" text, CONSTRAINT "UQ_delivery_attempts_delivery_attempt" UNIQUE ("delivery_id", "attempt"), CONSTRAINT "PK_41eba4eb5401d72860f7cd9a7ac" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "callback_dispatcher"."delivery_attempts" ADD CONSTRAINT "FK_delivery_attempts_delivery_id" FOREIGN KEY ("delivery_id") REFERENCES "callback_dispatcher"."deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "callback_dispatcher"."delivery_attempts" DROP CONSTRAINT "FK_delivery_attempts_delivery_id"`);
    await queryRunner.query(`DROP TABLE "callback_dispatcher"."delivery_attempts"`);
    await queryRunner.query(`DROP INDEX "callback_dispatcher"."IDX_deliveries_workspace_created_at"`);
    await queryRunner.query(`DROP INDEX "callback_dispatcher"."IDX_deliveries_request_id"`);
    await queryRunner.query(`DROP TABLE "callback_dispatcher"."deliveries"`);
  }
}
