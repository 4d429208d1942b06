import { Module } from '@nestjs/common';
import { BUDGET_ALERT_SINK } from './budget-alert-sink';
import { GovernanceReconciler } from './governance-reconciler';
import { LoggingBudgetAlertSink } from './logging-budget-alert-sink';
import { GovernanceProjectionPlaceholderController } from './projection-placeholder.controller';

/**
 * Usage governance's reconciliation of ended runs (GovernanceReconciler), used by the ledger
 * consumer. BUDGET_ALERT_SINK is bound here: by default to a sink that only logs.
 */
@Module({
  // PLACEHOLDER: removed when the projection writer (GovernancePatterns.loadProjection) is merged.
  controllers: [GovernanceProjectionPlaceholderController],
  providers: [GovernanceReconciler, { provide: BUDGET_ALERT_SINK, useClass: LoggingBudgetAlertSink }],
  exports: [GovernanceReconciler],
})
export class GovernanceModule {}
