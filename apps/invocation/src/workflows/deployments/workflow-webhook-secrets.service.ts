import { Inject, Injectable, Logger } from '@nestjs/common';
import type { WorkflowWebhookSecretView } from '@waggle/contracts';
import { APP_ENV } from '@waggle/platform';
import { OwnerWebhookSecrets, SecretSealer, WebhookTargetKeeper } from '@waggle/webhooks';
import type { InvocationEnv } from '../../config/invocation.env';
import type { WorkflowDeploymentEntity } from './entities/workflow-deployment.entity';
import { WorkflowDeploymentsRepository } from './workflow-deployments.repository';

/**
 * Each workflow deployment's webhook secret (decisions: every workflow deployment has its
 * own), kept as every webhook owner's is (OwnerWebhookSecrets) and published as the
 * deployment's webhook target (kind `workflow_deployment`), so the callback-dispatcher signs
 * `workflow.*` callbacks with it without asking this service. Workflow callbacks need just
 * the secrets: the target has no `variants`.
 */
@Injectable()
export class WorkflowWebhookSecrets extends OwnerWebhookSecrets<WorkflowDeploymentEntity, WorkflowWebhookSecretView> {
  constructor(
    private readonly deployments: WorkflowDeploymentsRepository,
    keeper: WebhookTargetKeeper,
    sealer: SecretSealer,
    @Inject(APP_ENV) env: InvocationEnv,
  ) {
    super({
      kind: 'workflow_deployment',
      keeper,
      sealer,
      overlapSeconds: env.WEBHOOK_SECRET_OVERLAP_SECONDS,
      store: {
        transaction: (work) => deployments.transaction(work),
        get: (workspaceId, name, options) => deployments.getDeployment(workspaceId, name, { lock: options?.lock }),
        saveSecrets: (deployment) => deployments.saveSecrets(deployment),
        findByIds: (ids) => deployments.findDeploymentsByIds(ids),
        idsPage: (skip, take) => deployments.deploymentIdsPage(skip, take),
      },
      view: (deployment, secret) => ({ deployment: deployment.name, workflow_deployment_id: deployment.id, ...secret }),
      logIdField: 'workflow_deployment_id',
      logger: new Logger(WorkflowWebhookSecrets.name),
    });
  }
}
