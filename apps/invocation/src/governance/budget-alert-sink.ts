import type { BudgetCrossing } from '@waggle/contracts';
/** Where reconciliation hands the budget thresholds a run crossed (records + signed webhooks). */
export interface BudgetAlertSink {
  deliver(crossings: readonly BudgetCrossing[]): Promise<void>;
}
export const BUDGET_ALERT_SINK = Symbol('BudgetAlertSink');
