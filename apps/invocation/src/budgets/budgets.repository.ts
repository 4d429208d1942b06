import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import { In, Not, IsNull, type DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { BudgetAlertEntity } from './entities/budget-alert.entity';
import { BudgetEntity } from './entities/budget.entity';

/** A crossing to record (the alert without its id). */
export type NewBudgetAlert = Omit<BudgetAlertEntity, 'id'>;

const SQL = defineSql(__filename, {
  /** Records a crossing once: a crossing handed over again answers no row. */
  insertAlert: sql<RowOf<BudgetAlertEntity>>(`
    INSERT INTO "${SCHEMA}"."budget_alerts"
      ("workspace_id", "budget_id", "event", "scope", "scope_id", "period", "period_key", "threshold", "spent_micros", "limit_micros", "at", "delivery_id")
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
    ON CONFLICT ("budget_id", "period_key", "threshold") DO NOTHING
    RETURNING *`),
});

/** Budgets and the alerts their crossings made. */
@Injectable()
export class BudgetsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's budgets, oldest first. */
  list(workspaceId: string): Promise<BudgetEntity[]> {
    return this.table(BudgetEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  count(workspaceId: string): Promise<number> {
    return this.table(BudgetEntity).countBy({ workspaceId });
  }

  find(workspaceId: string, id: string): Promise<BudgetEntity | null> {
    return this.table(BudgetEntity).findOneBy({ workspaceId, id });
  }

  /** The workspace's budget of a scope and period, if any. */
  findByScope(workspaceId: string, budget: Pick<BudgetEntity, 'scope' | 'scopeId' | 'period'>): Promise<BudgetEntity | null> {
    return this.table(BudgetEntity).findOneBy({
      workspaceId,
      scope: budget.scope,
      scopeId: budget.scopeId === null ? IsNull() : budget.scopeId,
      period: budget.period,
    });
  }

  save(budget: Partial<BudgetEntity>): Promise<BudgetEntity> {
    const budgets = this.table(BudgetEntity);
    return budgets.save(budgets.create(budget));
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.table(BudgetEntity).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Budgets with a webhook secret among these ids (their webhook targets). */
  findSigningByIds(ids: string[]): Promise<BudgetEntity[]> {
    return this.table(BudgetEntity).findBy({ id: In(ids), webhookSecretSealed: Not(IsNull()) });
  }

  /** One page of the ids of every budget with a webhook secret, in a stable order. */
  async signingIdsPage(skip: number, take: number): Promise<string[]> {
    const budgets = await this.table(BudgetEntity).find({
      select: { id: true },
      where: { webhookSecretSealed: Not(IsNull()) },
      order: { id: 'ASC' },
      skip,
      take,
    });
    return budgets.map((budget) => budget.id);
  }

  /** Records a crossing; null when it was recorded already. */
  async insertAlert(alert: NewBudgetAlert): Promise<BudgetAlertEntity | null> {
    const row = await this.row(SQL.insertAlert, [
      alert.workspaceId,
      alert.budgetId,
      alert.event,
      alert.scope,
      alert.scopeId,
      alert.period,
      alert.periodKey,
      alert.threshold,
      alert.spentMicros,
      alert.limitMicros,
      alert.at,
      alert.deliveryId,
    ]);
    return row && this.table(BudgetAlertEntity).create({ id: row.id, ...alert });
  }

  /** The workspace's alerts, newest first, one budget's when given. */
  listAlerts(workspaceId: string, budgetId: string | undefined, take: number): Promise<BudgetAlertEntity[]> {
    return this.table(BudgetAlertEntity).find({
      where: { workspaceId, ...(budgetId === undefined ? {} : { budgetId }) },
      order: { at: 'DESC', id: 'DESC' },
      take,
    });
  }
}
