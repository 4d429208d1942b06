import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber, TimestampColumns } from '@waggle/database';

/** A plan's caps; every null column means unlimited. */
@Entity({ name: 'plans' })
export class PlanEntity extends TimestampColumns {
  @PrimaryColumn({ type: 'text' })
  key!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'rate_limit_per_day', type: 'integer', nullable: true })
  rateLimitPerDay!: number | null;

  @Column({ name: 'provider_tool_calls_per_day', type: 'integer', nullable: true })
  providerToolCallsPerDay!: number | null;

  @Column({ name: 'workflow_concurrency', type: 'integer', nullable: true })
  workflowConcurrency!: number | null;

  /** Steps one workflow run may execute (a loop's body counts once per iteration). */
  @Column({ name: 'workflow_step_limit', type: 'integer', nullable: true })
  workflowStepLimit!: number | null;

  @Column({ name: 'asset_storage_bytes', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  assetStorageBytes!: number | null;
}
