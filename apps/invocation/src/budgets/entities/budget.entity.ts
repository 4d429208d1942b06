import type { BudgetPeriod, BudgetScope } from '@waggle/contracts';
import { bigintAsNumber, TimestampColumns } from '@waggle/database';
import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A spend cap of a workspace, one of its API keys or one of its end users, per UTC day or month
 * (the spec's decisions on usage governance). One per scope and period: the workspace scope has
 * no scope id, so its uniqueness is its own partial index.
 */
@Entity({ name: 'budgets' })
@Index('UQ_budgets_workspace_scope_period', ['workspaceId', 'scope', 'scopeId', 'period'], {
  unique: true,
  where: '"scope_id" IS NOT NULL',
})
@Index('UQ_budgets_workspace_period', ['workspaceId', 'period'], { unique: true, where: `"scope" = 'workspace'` })
@Check('CHK_budgets_limit_positive', '"limit_micros" > 0')
@Check('CHK_budgets_scope_id', `("scope" = 'workspace') = ("scope_id" IS NULL)`)
export class BudgetEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  scope!: BudgetScope;

  /** The API key's id or the user label; null for the workspace. */
  @Column({ name: 'scope_id', type: 'text', nullable: true })
  scopeId!: string | null;

  @Column({ type: 'text' })
  period!: BudgetPeriod;

  @Column({ name: 'limit_micros', type: 'bigint', transformer: bigintAsNumber })
  limitMicros!: number;

  /** Percent of the limit, ascending. */
  @Column({ type: 'integer', array: true, default: () => "'{80,100}'" })
  thresholds!: number[];

  @Column({ name: 'alert_url', type: 'text', nullable: true })
  alertUrl!: string | null;

  /**
   * Signs the budget's alert webhooks (`whsec_`, sealed under WEBHOOK_SECRET_KEY); made when the
   * budget first gets an alert URL and kept after, so a receiver's secret survives URL changes.
   */
  @Column({ name: 'webhook_secret_sealed', type: 'text', nullable: true })
  webhookSecretSealed!: string | null;
}
