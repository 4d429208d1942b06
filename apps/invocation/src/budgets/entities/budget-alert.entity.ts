import type { BudgetAlertEvent, BudgetPeriod, BudgetScope } from '@waggle/contracts';
import { bigintAsNumber } from '@waggle/database';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A budget threshold a workspace crossed: kept, listable, one per budget, period and threshold
 * (a crossing handed over twice is recorded once). Kept when its budget is deleted.
 */
@Entity({ name: 'budget_alerts' })
@Index('UQ_budget_alerts_budget_period_threshold', ['budgetId', 'periodKey', 'threshold'], { unique: true })
@Index('IDX_budget_alerts_workspace_at', ['workspaceId', 'at'])
export class BudgetAlertEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'budget_id', type: 'uuid' })
  budgetId!: string;

  @Column({ type: 'text' })
  event!: BudgetAlertEvent;

  @Column({ type: 'text' })
  scope!: BudgetScope;

  @Column({ name: 'scope_id', type: 'text', nullable: true })
  scopeId!: string | null;

  @Column({ type: 'text' })
  period!: BudgetPeriod;

  /** `d20261128` or `m202611`. */
  @Column({ name: 'period_key', type: 'text' })
  periodKey!: string;

  @Column({ type: 'integer' })
  threshold!: number;

  @Column({ name: 'spent_micros', type: 'bigint', transformer: bigintAsNumber })
  spentMicros!: number;

  @Column({ name: 'limit_micros', type: 'bigint', transformer: bigintAsNumber })
  limitMicros!: number;

  @Column({ type: 'timestamptz' })
  at!: Date;

  /** The signed webhook's delivery id; null when the budget had no alert URL. */
  @Column({ name: 'delivery_id', type: 'text', nullable: true })
  deliveryId!: string | null;
}
