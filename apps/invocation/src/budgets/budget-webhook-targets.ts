import { Injectable, type OnModuleInit } from '@nestjs/common';
import { registeredSecrets, SecretSealer, WebhookTargetKeeper, type WebhookTarget, type WebhookTargetSource } from '@waggle/webhooks';
import { BudgetsRepository } from './budgets.repository';

/**
 * Budgets as webhook owners (kind `budget`): each budget given an alert URL has its own secret,
 * published to the webhook registry like every owner's, from which the callback-dispatcher
 * signs its alerts. No rotation: a budget's secret is shown once, when it is made.
 */
@Injectable()
export class BudgetWebhookTargets implements WebhookTargetSource, OnModuleInit {
  readonly kind = 'budget' as const;

  constructor(
    private readonly budgets: BudgetsRepository,
    private readonly keeper: WebhookTargetKeeper,
    private readonly sealer: SecretSealer,
  ) {}

  onModuleInit(): void {
    this.keeper.register(this);
  }

  async targets(ids: string[]): Promise<WebhookTarget[]> {
    const budgets = await this.budgets.findSigningByIds(ids);
    return budgets.map((budget) => ({
      kind: this.kind,
      id: budget.id,
      workspace_id: budget.workspaceId,
      secrets: registeredSecrets(this.sealer, { current: budget.webhookSecretSealed as string, previous: null, previousExpiresAt: null }),
    }));
  }

  idsPage(skip: number, take: number): Promise<string[]> {
    return this.budgets.signingIdsPage(skip, take);
  }

  publish(id: string): Promise<number> {
    return this.keeper.publish(this.kind, [id]);
  }

  unpublish(id: string): Promise<void> {
    return this.keeper.remove(this.kind, id);
  }
}
