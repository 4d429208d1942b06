import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { DeploymentRepository, deploymentStatements } from '../../deployments/deployment.repository';
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

export { deploymentNotFound, variantNotFound } from '../../deployments/deployment.repository';

const SQL = defineSql(__filename, {
  ...deploymentStatements(TABLES),
  /** The deployment by name, its variant by name and the variant's current version; null columns say which part is missing. */
  current: sql<WorkflowVersionRow | { deployment_id: string; version_id: null }>(`
    SELECT d.id AS deployment_id, d.name AS deployment_name, d.workspace_id, d.webhook_secret_sealed,
           v.id AS variant_id, v.name AS variant_name, ver.id AS version_id, ver.version, ver.definition
      FROM ${TABLES.deployments} d
      LEFT JOIN ${TABLES.variants} v ON v.deployment_id = d.id AND v.name = $3
      LEFT JOIN ${TABLES.versions} ver ON ver.id = v.current_version_id
     WHERE d.workspace_id = $1 AND d.name = $2`),
  versionById: sql<WorkflowVersionRow>(`
    SELECT d.id AS deployment_id, d.name AS deployment_name, d.workspace_id, d.webhook_secret_sealed,
           v.id AS variant_id, v.name AS variant_name, ver.id AS version_id, ver.version, ver.definition
      FROM ${TABLES.versions} ver
      JOIN ${TABLES.variants} v ON v.id = ver.variant_id
      JOIN ${TABLES.deployments} d ON d.id = v.deployment_id
     WHERE ver.id = $1`),
});

/** Every query of workflow deployments, variants and versions (the shared ones are DeploymentRepository's). */
@Injectable()
export class WorkflowDeploymentsRepository extends DeploymentRepository<
  WorkflowDeploymentEntity,
  WorkflowVariantEntity,
  WorkflowVersionEntity
> {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource, { deployment: WorkflowDeploymentEntity, variant: WorkflowVariantEntity, version: WorkflowVersionEntity }, SQL);
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
    return (await this.row(SQL.current, [workspaceId, deploymentName, variantName])) ?? { deployment_id: null };
  }

  /** A version by id with its variant and deployment, in one query; null when it does not exist. */
  versionById(versionId: string): Promise<WorkflowVersionRow | null> {
    return this.row(SQL.versionById, [versionId]);
  }
}
