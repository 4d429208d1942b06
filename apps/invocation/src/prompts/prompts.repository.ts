import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { WaggleException } from '@waggle/errors';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { PromptDeploymentEntity } from './entities/prompt-deployment.entity';
import { PromptVariantEntity } from './entities/prompt-variant.entity';
import { PromptVersionEntity } from './entities/prompt-version.entity';

/** A deployment, one of its variants, and the version a run of it uses. */
export interface ResolvedPrompt {
  deployment: PromptDeploymentEntity;
  variant: PromptVariantEntity;
  version: PromptVersionEntity;
}

/** The ids a webhook trigger pinned when it was accepted. */
export interface PinnedPromptIds {
  workspaceId: string;
  deploymentId: string;
  variantId: string;
  versionId: string;
}

/**
 * Every query of prompt deployments, variants and versions. Methods that take an
 * EntityManager run inside the caller's transaction (see `transaction`).
 */
@Injectable()
export class PromptsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** A workspace's deployment by name; `lock` holds it against concurrent writers until the transaction ends. */
  findDeployment(
    workspaceId: string,
    name: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<PromptDeploymentEntity | null> {
    const manager = options.manager ?? this.dataSource.manager;
    return manager.findOne(PromptDeploymentEntity, {
      where: { workspaceId, name },
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findDeployment, but a missing deployment is `resource_not_found`. */
  async getDeployment(
    workspaceId: string,
    name: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<PromptDeploymentEntity> {
    const deployment = await this.findDeployment(workspaceId, name, options);
    if (!deployment) throw new WaggleException('resource_not_found', { detail: 'deployment_not_found', params: { name } });
    return deployment;
  }

  findDeploymentsByIds(ids: string[]): Promise<PromptDeploymentEntity[]> {
    return this.dataSource.getRepository(PromptDeploymentEntity).findBy({ id: In(ids) });
  }

  listDeployments(workspaceId: string): Promise<PromptDeploymentEntity[]> {
    return this.dataSource.getRepository(PromptDeploymentEntity).find({ where: { workspaceId }, order: { name: 'ASC' } });
  }

  /** One page of every deployment's id, in a stable order. */
  async deploymentIdsPage(skip: number, take: number): Promise<string[]> {
    const page = await this.dataSource
      .getRepository(PromptDeploymentEntity)
      .find({ select: { id: true }, order: { id: 'ASC' }, skip, take });
    return page.map((deployment) => deployment.id);
  }

  /** The variants of these deployments with their current versions, by name. */
  listVariants(deploymentIds: string[]): Promise<PromptVariantEntity[]> {
    if (deploymentIds.length === 0) return Promise.resolve([]);
    return this.dataSource
      .getRepository(PromptVariantEntity)
      .find({ where: { deploymentId: In(deploymentIds) }, relations: { currentVersion: true }, order: { name: 'ASC' } });
  }

  /** What a run of (deployment, variant) by name uses now: the variant's current version. */
  async resolve(workspaceId: string, deploymentName: string, variantName: string): Promise<ResolvedPrompt> {
    const deployment = await this.getDeployment(workspaceId, deploymentName);
    const variant = await this.findVariant(deployment.id, variantName);
    const version = variant?.currentVersion;
    if (!variant || !version)
      throw new WaggleException('resource_not_found', { detail: 'variant_not_found_named', params: { name: variantName } });
    return { deployment, variant, version };
  }

  /** Exactly the deployment, variant and version a trigger pinned, in its workspace. */
  async pinned(ids: PinnedPromptIds): Promise<ResolvedPrompt> {
    const deployment = await this.dataSource
      .getRepository(PromptDeploymentEntity)
      .findOneBy({ id: ids.deploymentId, workspaceId: ids.workspaceId });
    const variant =
      deployment &&
      (await this.dataSource.getRepository(PromptVariantEntity).findOneBy({ id: ids.variantId, deploymentId: deployment.id }));
    const version =
      variant && (await this.dataSource.getRepository(PromptVersionEntity).findOneBy({ id: ids.versionId, variantId: variant.id }));
    if (!deployment || !variant || !version)
      throw new WaggleException('resource_not_found', { detail: 'prompt_deployment_or_variant_gone' });
    return { deployment, variant, version };
  }

  /** A variant by name with its current version. */
  findVariant(deploymentId: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<PromptVariantEntity | null> {
    return manager.findOne(PromptVariantEntity, { where: { deploymentId, name }, relations: { currentVersion: true } });
  }

  /** Every version of a variant, newest first. */
  versionsOf(variantId: string): Promise<PromptVersionEntity[]> {
    return this.dataSource.getRepository(PromptVersionEntity).find({ where: { variantId }, order: { version: 'DESC' } });
  }

  createDeployment(
    manager: EntityManager,
    values: Pick<PromptDeploymentEntity, 'workspaceId' | 'name' | 'webhookSecretSealed'>,
  ): Promise<PromptDeploymentEntity> {
    return manager.save(manager.create(PromptDeploymentEntity, values));
  }

  saveDeployment(manager: EntityManager, deployment: PromptDeploymentEntity): Promise<PromptDeploymentEntity> {
    return manager.save(deployment);
  }

  createVariant(manager: EntityManager, deploymentId: string, name: string): Promise<PromptVariantEntity> {
    return manager.save(manager.create(PromptVariantEntity, { deploymentId, name, currentVersionId: null }));
  }

  /** Adds the variant's next version and points the variant at it. */
  async addVersion(
    manager: EntityManager,
    variantId: string,
    values: Omit<PromptVersionEntity, 'id' | 'variantId' | 'version' | 'createdAt'>,
  ): Promise<PromptVersionEntity> {
    const latest = await manager.findOne(PromptVersionEntity, { where: { variantId }, order: { version: 'DESC' } });
    const version = await manager.save(manager.create(PromptVersionEntity, { ...values, variantId, version: (latest?.version ?? 0) + 1 }));
    await manager.update(PromptVariantEntity, { id: variantId }, { currentVersionId: version.id });
    return version;
  }
}
