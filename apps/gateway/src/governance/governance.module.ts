import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { BudgetAlertsController, BudgetsController } from './budgets.controller';
import { RateLimitsController } from './rate-limits.controller';
import { UsageController } from './usage.controller';

/** Usage governance's private routes (documented), owned by the invocation service. */
@Module({ imports: [AuthModule], controllers: [BudgetsController, BudgetAlertsController, RateLimitsController, UsageController] })
export class GovernanceModule {}
