import type { WebhookOwnerColumns } from '@waggle/database';
import { WaggleException } from '@waggle/errors';
import {
  In,
  type DataSource,
  type DeepPartial,
  type EntityManager,
  type FindOptionsOrder,
  type FindOptionsRelations,
  type FindOptionsSelect,
  type FindOptionsWhere,
  type ObjectType,
} from 'typeorm';
import type { VersionColumns } from './version-columns';

/** The variant columns the shared queries use: a named variant of a deployment, pointing at its current version. */
interface VariantShape<Version> {
  id: string;
  deploymentId: string;
  name: string;
  currentVersionId: string | null;
  currentVersion: Version | null;
}

export interface DeploymentEntities<Deployment, Variant, Version> {
  deployment: ObjectType<Deployment>;
  variant: ObjectType<Variant>;
  version: ObjectType<Version>;
}

/** A deployment with its variants (each with its current version), by name. */
export interface DeploymentWithVariants<Deployment, Variant> {
  deployment: Deployment;
  variants: Variant[];
}

/** `resource_not_found` for a deployment name the workspace does not have. */
export function deploymentNotFound(name: string): WaggleException {
  return new WaggleException('resource_not_found', { detail: 'deployment_not_found', params: { name } });
}

/** `resource_not_found` for a variant name the deployment does not have. */
export function variantNotFound(name: string): WaggleException {
  return new WaggleException('resource_not_found', { detail: 'variant_not_found_named', params: { name } });
}

/**
 * The queries prompt and workflow deployments share: a workspace's deployments by name, each
 * with named variants pointing at immutable versions. Methods that take an EntityManager run
 * inside the caller's transaction (see `transaction`).
 */
export abstract class DeploymentRepository<
  Deployment extends WebhookOwnerColumns,
  Variant extends VariantShape<Version>,
  Version extends VersionColumns,
> {
  protected constructor(
    protected readonly dataSource: DataSource,
    private readonly entities: DeploymentEntities<Deployment, Variant, Version>,
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** A workspace's deployment by name; `lock` holds it against concurrent writers until the transaction ends. */
  findDeployment(workspaceId: string, name: string, options: { manager?: EntityManager; lock?: boolean } = {}): Promise<Deployment | null> {
    const manager = options.manager ?? this.dataSource.manager;
    return manager.findOne(this.entities.deployment, {
      where: { workspaceId, name } as FindOptionsWhere<Deployment>,
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findDeployment, but a missing deployment is `resource_not_found`. */
  async getDeployment(workspaceId: string, name: string, options: { manager?: EntityManager; lock?: boolean } = {}): Promise<Deployment> {
    const deployment = await this.findDeployment(workspaceId, name, options);
    if (!deployment) throw deploymentNotFound(name);
    return deployment;
  }

  findDeploymentsByIds(ids: string[]): Promise<Deployment[]> {
    return this.dataSource.getRepository(this.entities.deployment).findBy({ id: In(ids) } as FindOptionsWhere<Deployment>);
  }

  listDeployments(workspaceId: string): Promise<Deployment[]> {
    return this.dataSource
      .getRepository(this.entities.deployment)
      .find({ where: { workspaceId } as FindOptionsWhere<Deployment>, order: { name: 'ASC' } as FindOptionsOrder<Deployment> });
  }

  /** The workspace's deployments by name, each with its variants (and their current versions) by name. */
  async listWithVariants(workspaceId: string): Promise<Array<DeploymentWithVariants<Deployment, Variant>>> {
    const deployments = await this.listDeployments(workspaceId);
    const variants = await this.listVariants(deployments.map((deployment) => deployment.id));
    return deployments.map((deployment) => ({
      deployment,
      variants: variants.filter((variant) => variant.deploymentId === deployment.id),
    }));
  }

  /** One page of every deployment's id, in a stable order (the registry's resync). */
  async deploymentIdsPage(skip: number, take: number): Promise<string[]> {
    const page = await this.dataSource
      .getRepository(this.entities.deployment)
      .find({ select: { id: true } as FindOptionsSelect<Deployment>, order: { id: 'ASC' } as FindOptionsOrder<Deployment>, skip, take });
    return page.map((deployment) => deployment.id);
  }

  /** The variants of these deployments with their current versions, by name. */
  listVariants(deploymentIds: string[]): Promise<Variant[]> {
    if (deploymentIds.length === 0) return Promise.resolve([]);
    return this.dataSource.getRepository(this.entities.variant).find({
      where: { deploymentId: In(deploymentIds) } as FindOptionsWhere<Variant>,
      relations: { currentVersion: true } as FindOptionsRelations<Variant>,
      order: { name: 'ASC' } as FindOptionsOrder<Variant>,
    });
  }

  /** A variant by name with its current version. */
  findVariant(deploymentId: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<Variant | null> {
    return manager.findOne(this.entities.variant, {
      where: { deploymentId, name } as FindOptionsWhere<Variant>,
      relations: { currentVersion: true } as FindOptionsRelations<Variant>,
    });
  }

  /** Every version of a variant, newest first. */
  versionsOf(variantId: string): Promise<Version[]> {
    return this.dataSource
      .getRepository(this.entities.version)
      .find({ where: { variantId } as FindOptionsWhere<Version>, order: { version: 'DESC' } as FindOptionsOrder<Version> });
  }

  createDeployment(
    manager: EntityManager,
    values: Pick<Deployment, 'workspaceId' | 'name' | 'webhookSecretSealed'> &
      Partial<Pick<Deployment, 'previousWebhookSecretSealed' | 'previousSecretExpiresAt'>>,
  ): Promise<Deployment> {
    return manager.save(manager.create(this.entities.deployment, values as DeepPartial<Deployment>));
  }

  saveDeployment(manager: EntityManager, deployment: Deployment): Promise<Deployment> {
    return manager.save(deployment);
  }

  createVariant(manager: EntityManager, deploymentId: string, name: string): Promise<Variant> {
    return manager.save(manager.create(this.entities.variant, { deploymentId, name, currentVersionId: null } as DeepPartial<Variant>));
  }

  /** Adds the variant's next version and points the variant at it. */
  async addVersion(manager: EntityManager, variantId: string, values: Omit<Version, keyof VersionColumns>): Promise<Version> {
    const latest = await manager.findOne(this.entities.version, {
      where: { variantId } as FindOptionsWhere<Version>,
      order: { version: 'DESC' } as FindOptionsOrder<Version>,
    });
    const version = await manager.save(
      manager.create(this.entities.version, { ...values, variantId, version: (latest?.version ?? 0) + 1 } as DeepPartial<Version>),
    );
    // Typed by the columns the shared queries know, which the update names.
    const variants: ObjectType<VariantShape<Version>> = this.entities.variant;
    await manager.update(variants, { id: variantId }, { currentVersionId: version.id });
    return version;
  }
}
