import { Injectable, Logger } from '@nestjs/common';
import type { BudgetCrossing } from '@waggle/contracts';
import type { BudgetAlertSink } from './budget-alert-sink';

/** The default BudgetAlertSink: each crossing is a log line (budget, scope, period, amounts; nothing secret), nothing is sent. */
@Injectable()
export class LoggingBudgetAlertSink implements BudgetAlertSink {
  private readonly logger = new Logger('BudgetAlerts');

  deliver(crossings: readonly BudgetCrossing[]): Promise<void> {
    for (const crossing of crossings) this.logger.log({ ...crossing }, `${crossing.event}: a budget crossed ${crossing.threshold}%`);
    return Promise.resolve();
  }
}
