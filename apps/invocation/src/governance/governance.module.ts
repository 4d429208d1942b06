import { Module } from '@nestjs/common';
import { GovernanceAdminModule } from '../governance-projection/governance-admin.module';
import { GovernanceReconciler } from './governance-reconciler';

/**
 * Usage governance's reconciliation of ended runs (GovernanceReconciler), used by the ledger
 * consumer; the budget thresholds it finds crossed go to the administration's BUDGET_ALERT_SINK
 * (alert records and signed webhooks).
 */
@Module({
  imports: [GovernanceAdminModule],
  providers: [GovernanceReconciler],
  exports: [GovernanceReconciler],
})
export class GovernanceModule {}
