import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { WaggleException } from '@waggle/errors';
import { defineSql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { DeploymentRepository, deploymentStatements, variantNotFound } from '../deployments/deployment.repository';
import { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import { PromptVariantEntity } from './entities/prompt-variant.entity';
import { PromptVersionEntity } from './entities/prompt-version.entity';

const SQL = defineSql(__filename, {
  ...deploymentStatements({
    deployments: `"${SCHEMA}"."prompt_deployments"`,
    variants: `"${SCHEMA}"."prompt_variants"`,
    versions: `"${SCHEMA}"."prompt_versions"`,
  }),
});

/** A deployment, one of its variants, and the version a run of it uses. */
export interface ResolvedPrompt {
  deployment: PromptDeploymentEntity;
  variant: PromptVariantEntity;
  version: PromptVersionEntity;
}

/** A variant as a run of it by name resolves it: its deployed version, and its newest version's number (`latest`). */
export interface ResolvedVariant extends ResolvedPrompt {
  latestVersion: number;
}

/** The ids a webhook trigger pinned when it was accepted. */
export interface PinnedPromptIds {
  workspaceId: string;
  deploymentId: string;
  variantId: string;
  versionId: string;
}

/** Every query of prompt deployments, variants and versions (the shared ones are DeploymentRepository's). */
@Injectable()
export class PromptsRepository extends DeploymentRepository<PromptDeploymentEntity, PromptVariantEntity, PromptVersionEntity> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, { deployment: PromptDeploymentEntity, variant: PromptVariantEntity, version: PromptVersionEntity }, SQL);
  }

  /** What a run of (deployment, variant) by name uses now: the variant's current version, with the newest version's number. */
  async resolve(workspaceId: string, deploymentName: string, variantName: string): Promise<ResolvedVariant> {
    const deployment = await this.getDeployment(workspaceId, deploymentName);
    const variant = await this.findVariant(deployment.id, variantName);
    const version = variant?.currentVersion;
    if (!variant || !version) throw variantNotFound(variantName);
    const latestVersion = (await this.table(PromptVersionEntity).maximum('version', { variantId: variant.id })) ?? version.version;
    return { deployment, variant, version, latestVersion };
  }

  /** Exactly the deployment, variant and version a trigger pinned, in its workspace. */
  async pinned(ids: PinnedPromptIds): Promise<ResolvedPrompt> {
    const deployment = await this.table(PromptDeploymentEntity).findOneBy({ id: ids.deploymentId, workspaceId: ids.workspaceId });
    const variant = deployment && (await this.table(PromptVariantEntity).findOneBy({ id: ids.variantId, deploymentId: deployment.id }));
    const version = variant && (await this.table(PromptVersionEntity).findOneBy({ id: ids.versionId, variantId: variant.id }));
    if (!deployment || !variant || !version)
      throw new WaggleException('resource_not_found', { detail: 'prompt_deployment_or_variant_gone' });
    return { deployment, variant, version };
  }
}
