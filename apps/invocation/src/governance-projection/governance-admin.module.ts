import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { BudgetAlerts } from '../budgets/budget-alerts';
import { BudgetWebhookTargets } from '../budgets/budget-webhook-targets';
import { BudgetsController } from '../budgets/budgets.controller';
import { BudgetsRepository } from '../budgets/budgets.repository';
import { BudgetsService } from '../budgets/budgets.service';
import { CreditsController } from '../credits/credits.controller';
import { CreditsRepository } from '../credits/credits.repository';
import { CreditsService } from '../credits/credits.service';
import { BUDGET_ALERT_SINK } from '../governance/budget-alert-sink';
import { RateLimitsController } from '../rate-limits/rate-limits.controller';
import { RateLimitsRepository } from '../rate-limits/rate-limits.repository';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import { SpendController } from '../spend/spend.controller';
import { SpendRepository } from '../spend/spend.repository';
import { SpendService } from '../spend/spend.service';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { GovernanceProjection } from './governance-projection';
import { GovernanceProjectionController } from './governance-projection.controller';
import { GovernanceProjectionRepository } from './governance-projection.repository';

/**
 * Usage governance's administration (the spec's decisions on usage governance): budgets, rate
 * limits, hosted credits, budget alerts and spend reads, and the Redis projection the gateway's
 * admission reads. Exports the real BudgetAlertSink for reconciliation.
 */
@Module({
  imports: [WebhooksModule, registerQueues([QueueNames.callbacks])],
  controllers: [BudgetsController, RateLimitsController, CreditsController, SpendController, GovernanceProjectionController],
  providers: [
    GovernanceProjectionRepository,
    BudgetsRepository,
    RateLimitsRepository,
    CreditsRepository,
    SpendRepository,
    GovernanceProjection,
    BudgetWebhookTargets,
    BudgetsService,
    RateLimitsService,
    CreditsService,
    SpendService,
    BudgetAlerts,
    { provide: BUDGET_ALERT_SINK, useExisting: BudgetAlerts },
  ],
  exports: [BUDGET_ALERT_SINK, GovernanceProjection],
})
export class GovernanceAdminModule {}
