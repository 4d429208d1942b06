import { Injectable } from '@nestjs/common';
import type { WorkflowWebhookSecretView } from '@waggle/contracts';
import { contentHashOf } from '@waggle/platform';
import type { WorkflowDeploymentDefinition, WorkflowVariant } from '@waggle/workflows';
import { DeploymentApplier, type VersionDraft } from '../../deployments/deployment-applier';
import { McpToolsService } from '../../mcp-tools/mcp-tools.service';
import type { WorkflowDeploymentEntity } from './entities/workflow-deployment.entity';
import type { WorkflowVariantEntity } from './entities/workflow-variant.entity';
import type { WorkflowVersionEntity } from './entities/workflow-version.entity';
import { WorkflowDeploymentsRepository } from './workflow-deployments.repository';
import { WorkflowResolutionCache } from './workflow-resolution.cache';
import { WorkflowWebhookSecrets } from './workflow-webhook-secrets.service';

/** Workflow deployments, applied and rotated as every kind of deployment is (DeploymentApplier). */
@Injectable()
export class WorkflowDeploymentApplier extends DeploymentApplier<
  WorkflowDeploymentDefinition,
  WorkflowVariant,
  WorkflowDeploymentEntity,
  WorkflowVariantEntity,
  WorkflowVersionEntity,
  WorkflowWebhookSecretView
> {
  constructor(
    deployments: WorkflowDeploymentsRepository,
    secrets: WorkflowWebhookSecrets,
    resolutions: WorkflowResolutionCache,
    tools: McpToolsService,
  ) {
    super({ repository: deployments, secrets, resolutions, check: (workspaceId, specs) => tools.check(workspaceId, 'workflow', specs) });
  }

  /**
   * The parsed variant (its defaults applied) is the version, hashed in its code-unit canonical
   * form; `publish` is the variant's own, kept out (publishing makes no version).
   */
  protected versionOf(variant: WorkflowVariant): VersionDraft<WorkflowVersionEntity> {
    const { publish: _publish, ...definition } = variant;
    return { definition, contentHash: contentHashOf(definition, 'code-unit') };
  }
}
