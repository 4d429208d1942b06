import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RowOf } from '@waggle/database';
import { WaggleException } from '@waggle/errors';
import { In, type DataSource, type EntityManager } from 'typeorm';
import { WorkflowDeploymentEntity } from './entities/workflow-deployment.entity';
import { WorkflowVariantEntity } from './entities/workflow-variant.entity';
import { WorkflowVersionEntity } from './entities/workflow-version.entity';

const TABLES = {
  deployments: '"invocation"."workflow_deployments"',
  variants: '"invocation"."workflow_variants"',
  versions: '"invocation"."workflow_versions"',
};

/**
 * A version with the variant and deployment it belongs to, as the run path reads it (one row,
 * no entities). Its columns are the entities' (see RowOf); the ids and names are aliased.
 */
export type WorkflowVersionRow = Pick<RowOf<WorkflowDeploymentEntity>, 'workspace_id' | 'webhook_secret_sealed'> &
  Pick<RowOf<WorkflowVersionEntity>, 'version' | 'definition'> & {
    deployment_id: WorkflowDeploymentEntity['id'];
    deployment_name: WorkflowDeploymentEntity['name'];
    variant_id: WorkflowVariantEntity['id'];
    variant_name: WorkflowVariantEntity['name'];
    version_id: WorkflowVersionEntity['id'];
  };

/** `resource_not_found` for a workflow deployment name the workspace does not have. */
export function deploymentNotFound(name: string): WaggleException {
  return new WaggleException('resource_not_found', { message: `Deployment not found: ${name}` });
}

/** `resource_not_found` for a variant name the deployment does not have. */
export function variantNotFound(name: string): WaggleException {
  return new WaggleException('resource_not_found', { message: `Variant not found: ${name}` });
}

/**
 * Every query of workflow deployments, variants and versions. Methods that take an
 * EntityManager run inside the caller's transaction (see `transaction`).
 */
@Injectable()
export class WorkflowDeploymentsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** A workspace's deployment by name; `lock` holds it against concurrent writers until the transaction ends. */
  findDeployment(
    workspaceId: string,
    name: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<WorkflowDeploymentEntity | null> {
    const manager = options.manager ?? this.dataSource.manager;
    return manager.findOne(WorkflowDeploymentEntity, {
      where: { workspaceId, name },
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findDeployment, but a missing deployment is `resource_not_found`. */
  async getDeployment(
    workspaceId: string,
    name: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<WorkflowDeploymentEntity> {
    const deployment = await this.findDeployment(workspaceId, name, options);
    if (!deployment) throw deploymentNotFound(name);
    return deployment;
  }

  findDeploymentById(id: string): Promise<WorkflowDeploymentEntity | null> {
    return this.dataSource.getRepository(WorkflowDeploymentEntity).findOneBy({ id });
  }

  findDeploymentsByIds(ids: string[]): Promise<WorkflowDeploymentEntity[]> {
    return this.dataSource.getRepository(WorkflowDeploymentEntity).findBy({ id: In(ids) });
  }

  listDeployments(workspaceId: string): Promise<WorkflowDeploymentEntity[]> {
    return this.dataSource.getRepository(WorkflowDeploymentEntity).find({ where: { workspaceId }, order: { name: 'ASC' } });
  }

  /** One page of every deployment's id, in a stable order (the registry's resync). */
  async deploymentIdsPage(skip: number, take: number): Promise<string[]> {
    const page = await this.dataSource
      .getRepository(WorkflowDeploymentEntity)
      .find({ select: { id: true }, order: { id: 'ASC' }, skip, take });
    return page.map((deployment) => deployment.id);
  }

  /** The variants of these deployments with their current versions, by name. */
  listVariants(deploymentIds: string[]): Promise<WorkflowVariantEntity[]> {
    if (deploymentIds.length === 0) return Promise.resolve([]);
    return this.dataSource
      .getRepository(WorkflowVariantEntity)
      .find({ where: { deploymentId: In(deploymentIds) }, relations: { currentVersion: true }, order: { name: 'ASC' } });
  }

  /** A variant by name with its current version. */
  findVariant(deploymentId: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<WorkflowVariantEntity | null> {
    return manager.findOne(WorkflowVariantEntity, { where: { deploymentId, name }, relations: { currentVersion: true } });
  }

  /**
   * What a run of (deployment, variant) by name uses now: the variant's current version, in
   * one query (every invoke asks). Null fields say which part is missing.
   */
  async current(
    workspaceId: string,
    deploymentName: string,
    variantName: string,
  ): Promise<WorkflowVersionRow | { deployment_id: null } | { deployment_id: string; version_id: null }> {
    const rows = (await this.dataSource.query(
      `SELECT d.id AS deployment_id, d.name AS deployment_name, d.workspace_id, d.webhook_secret_sealed,
              v.id AS variant_id, v.name AS variant_name, ver.id AS version_id, ver.version, ver.definition
         FROM ${TABLES.deployments} d
         LEFT JOIN ${TABLES.variants} v ON v.deployment_id = d.id AND v.name = $3
         LEFT JOIN ${TABLES.versions} ver ON ver.id = v.current_version_id
        WHERE d.workspace_id = $1 AND d.name = $2`,
      [workspaceId, deploymentName, variantName],
    )) as Array<WorkflowVersionRow | { deployment_id: string; version_id: null }>;
    return rows[0] ?? { deployment_id: null };
  }

  /** A version by id with its variant and deployment, in one query; null when it does not exist. */
  async versionById(versionId: string): Promise<WorkflowVersionRow | null> {
    const rows = (await this.dataSource.query(
      `SELECT d.id AS deployment_id, d.name AS deployment_name, d.workspace_id, d.webhook_secret_sealed,
              v.id AS variant_id, v.name AS variant_name, ver.id AS version_id, ver.version, ver.definition
         FROM ${TABLES.versions} ver
         JOIN ${TABLES.variants} v ON v.id = ver.variant_id
         JOIN ${TABLES.deployments} d ON d.id = v.deployment_id
        WHERE ver.id = $1`,
      [versionId],
    )) as WorkflowVersionRow[];
    return rows[0] ?? null;
  }

  /** Every version of a variant, newest first. */
  versionsOf(variantId: string): Promise<WorkflowVersionEntity[]> {
    return this.dataSource.getRepository(WorkflowVersionEntity).find({ where: { variantId }, order: { version: 'DESC' } });
  }

  createDeployment(
    manager: EntityManager,
    values: Pick<
      WorkflowDeploymentEntity,
      'workspaceId' | 'name' | 'webhookSecretSealed' | 'previousWebhookSecretSealed' | 'previousSecretExpiresAt'
    >,
  ): Promise<WorkflowDeploymentEntity> {
    return manager.save(manager.create(WorkflowDeploymentEntity, values));
  }

  saveDeployment(manager: EntityManager, deployment: WorkflowDeploymentEntity): Promise<WorkflowDeploymentEntity> {
    return manager.save(deployment);
  }

  createVariant(manager: EntityManager, deploymentId: string, name: string): Promise<WorkflowVariantEntity> {
    return manager.save(manager.create(WorkflowVariantEntity, { deploymentId, name, currentVersionId: null }));
  }

  /** Adds the variant's next version and points the variant at it. */
  async addVersion(
    manager: EntityManager,
    variantId: string,
    values: Pick<WorkflowVersionEntity, 'definition' | 'contentHash'>,
  ): Promise<WorkflowVersionEntity> {
    const latest = await manager.findOne(WorkflowVersionEntity, { where: { variantId }, order: { version: 'DESC' } });
    const version = await manager.save(
      manager.create(WorkflowVersionEntity, { ...values, variantId, version: (latest?.version ?? 0) + 1 }),
    );
    await manager.update(WorkflowVariantEntity, { id: variantId }, { currentVersionId: version.id });
    return version;
  }
}
