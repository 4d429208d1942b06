import { Injectable } from '@nestjs/common';
import type { WorkflowWebhookSecretView } from '@waggle/contracts';
import { contentHashOf } from '@waggle/platform';
import type { WorkflowDeploymentDefinition, WorkflowVariant } from '@waggle/workflows';
import { DeploymentApplier, type VersionDraft } from '../../deployments/deployment-applier';
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
  constructor(deployments: WorkflowDeploymentsRepository, secrets: WorkflowWebhookSecrets, resolutions: WorkflowResolutionCache) {
    super({ repository: deployments, secrets, resolutions });
  }

  /** The parsed variant (its defaults applied) is the version, hashed in its code-unit canonical form. */
  protected versionOf(definition: WorkflowVariant): VersionDraft<WorkflowVersionEntity> {
    return { definition, contentHash: contentHashOf(definition, 'code-unit') };
  }
}
