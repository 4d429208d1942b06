import type { McpPublish } from '@waggle/contracts';
import { DataRepository, sql, type SqlStatement, type WebhookOwnerColumns } from '@waggle/database';
import { WaggleException } from '@waggle/errors';
import {
  In,
  type DataSource,
  type DeepPartial,
  type FindOptionsOrder,
  type FindOptionsSelect,
  type FindOptionsWhere,
  type ObjectType,
} from 'typeorm';
import type { VersionColumns } from './version-columns';

/** The variant columns the shared queries use: a named variant of a deployment, pointing at its current version. */
export interface VariantShape<Version> {
  id: string;
  deploymentId: string;
  name: string;
  currentVersionId: string | null;
  currentVersion: Version | null;
  /** Offered as a tool of the workspace's MCP server; null when not published (not versioned). */
  publish: McpPublish | null;
}

export interface DeploymentEntities<Deployment, Variant, Version> {
  deployment: ObjectType<Deployment>;
  variant: ObjectType<Variant>;
  version: ObjectType<Version>;
}

/**
 * A variant's row with its current version's row as one JSON value (null when it has none):
 * one kind's tables differ from the other's in their version columns only, so the shared
 * queries read the version whole.
 */
interface VariantRow {
  id: string;
  deployment_id: string;
  name: string;
  current_version_id: string | null;
  publish: McpPublish | null;
  created_at: Date;
  updated_at: Date;
  current_version: ({ created_at: string } & Record<string, unknown>) | null;
}

/** A published variant with its deployment's name and its current version's row (the MCP tools of a workspace). */
interface PublishedVariantRow {
  deployment: string;
  variant: string;
  publish: McpPublish;
  current_version: ({ created_at: string } & Record<string, unknown>) | null;
}

/** A variant offered as an MCP tool: its deployment and name, its publish setting and its current version. */
export interface PublishedVariant<Version> {
  deployment: string;
  variant: string;
  publish: McpPublish;
  currentVersion: Version | null;
}

/** The statements of the shared queries that join, over one kind's tables. */
export interface DeploymentStatements {
  variantByName: SqlStatement<VariantRow>;
  variantsOf: SqlStatement<VariantRow>;
  publishedVariants: SqlStatement<PublishedVariantRow>;
  lockMcpToolNames: SqlStatement<never>;
  lockDeploymentNames: SqlStatement<never>;
}

/**
 * The shared statements for one kind's tables; each kind's repository declares them once, with
 * its own, in `defineSql` (so they are in its snapshot and prepared against the schema).
 */
export function deploymentStatements(tables: { deployments: string; variants: string; versions: string }): DeploymentStatements {
  const withCurrentVersion = `SELECT v.*, to_jsonb(ver) AS current_version
      FROM ${tables.variants} v
      LEFT JOIN ${tables.versions} ver ON ver.id = v.current_version_id`;
  return {
    variantByName: sql<VariantRow>(`
      ${withCurrentVersion}
     WHERE v.deployment_id = $1 AND v.name = $2`),
    variantsOf: sql<VariantRow>(`
      ${withCurrentVersion}
     WHERE v.deployment_id = ANY ($1::uuid[])
     ORDER BY v.name`),
    publishedVariants: sql<PublishedVariantRow>(`
      SELECT d.name AS deployment, v.name AS variant, v.publish, to_jsonb(ver) AS current_version
        FROM ${tables.deployments} d
        JOIN ${tables.variants} v ON v.deployment_id = d.id
        LEFT JOIN ${tables.versions} ver ON ver.id = v.current_version_id
       WHERE d.workspace_id = $1 AND (v.publish ->> 'mcp')::boolean IS TRUE
       ORDER BY d.name, v.name`),
    // One lock for both kinds: prompt and workflow variants share the workspace's tool names.
    lockMcpToolNames: sql(`SELECT pg_advisory_xact_lock(hashtextextended('invocation.mcp-tools:' || $1::text, 0))`),
    // One lock per (kind, workspace, name), taken in the order of their keys: never in opposite orders.
    lockDeploymentNames: sql(`
      SELECT pg_advisory_xact_lock(keys.key)
        FROM (SELECT DISTINCT hashtextextended('${tables.deployments}:' || $1::text || ':' || name, 0) AS key
                FROM unnest($2::text[]) AS name
               ORDER BY key) keys`),
  };
}

/** `current_version_id` → `currentVersionId`: every entity column is named snakeCase(property) (the row-types test holds them to it). */
function propertiesOf(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([column, value]) => [column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()), value]),
  );
}

/** A version's row read as JSON, as the entity's properties (JSON gives its `created_at` as text). */
function versionOfJson<Version>(version: ({ created_at: string } & Record<string, unknown>) | null): Version | null {
  return version === null ? null : ({ ...propertiesOf(version), createdAt: new Date(version.created_at) } as Version);
}

/** A variant row as the entity's properties, with its current version. */
function variantOfRow<Variant>(row: VariantRow): Variant {
  const { current_version: version, ...variant } = row;
  return { ...propertiesOf(variant), currentVersion: versionOfJson(version) } as Variant;
}

/** A deployment with its variants (each with its current version), by name. */
export interface DeploymentWithVariants<Deployment, Variant> {
  deployment: Deployment;
  variants: Variant[];
}

/** A new deployment's row: its name and its webhook secrets, all three columns (see DeploymentApplier). */
export type NewDeployment = Pick<
  WebhookOwnerColumns,
  'workspaceId' | 'name' | 'webhookSecretSealed' | 'previousWebhookSecretSealed' | 'previousSecretExpiresAt'
>;

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
 * with named variants pointing at immutable versions. Every call runs inside the transaction
 * open on this data source, if any (`transaction`, DataRepository): nothing is passed around.
 */
export abstract class DeploymentRepository<
  Deployment extends WebhookOwnerColumns,
  Variant extends VariantShape<Version>,
  Version extends VersionColumns,
> extends DataRepository {
  protected constructor(
    dataSource: DataSource,
    private readonly entities: DeploymentEntities<Deployment, Variant, Version>,
    private readonly statements: DeploymentStatements,
  ) {
    super(dataSource);
  }

  /** A workspace's deployment by name; `lock` holds it against concurrent writers until the transaction ends. */
  findDeployment(workspaceId: string, name: string, options: { lock?: boolean } = {}): Promise<Deployment | null> {
    return this.table(this.entities.deployment).findOne({
      where: { workspaceId, name } as FindOptionsWhere<Deployment>,
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findDeployment, but a missing deployment is `resource_not_found`. */
  async getDeployment(workspaceId: string, name: string, options: { lock?: boolean } = {}): Promise<Deployment> {
    const deployment = await this.findDeployment(workspaceId, name, options);
    if (!deployment) throw deploymentNotFound(name);
    return deployment;
  }

  findDeploymentsByIds(ids: string[]): Promise<Deployment[]> {
    return this.table(this.entities.deployment).findBy({ id: In(ids) } as FindOptionsWhere<Deployment>);
  }

  listDeployments(workspaceId: string): Promise<Deployment[]> {
    return this.table(this.entities.deployment).find({
      where: { workspaceId } as FindOptionsWhere<Deployment>,
      order: { name: 'ASC' } as FindOptionsOrder<Deployment>,
    });
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
    const page = await this.table(this.entities.deployment).find({
      select: { id: true } as FindOptionsSelect<Deployment>,
      order: { id: 'ASC' } as FindOptionsOrder<Deployment>,
      skip,
      take,
    });
    return page.map((deployment) => deployment.id);
  }

  /** The variants of these deployments with their current versions, by name. */
  async listVariants(deploymentIds: string[]): Promise<Variant[]> {
    if (deploymentIds.length === 0) return [];
    return (await this.rows(this.statements.variantsOf, [deploymentIds])).map((row) => variantOfRow<Variant>(row));
  }

  /** A variant by name with its current version. */
  async findVariant(deploymentId: string, name: string): Promise<Variant | null> {
    const row = await this.row(this.statements.variantByName, [deploymentId, name]);
    return row && variantOfRow<Variant>(row);
  }

  /** The workspace's variants offered as MCP tools, by deployment and variant name, each with its current version. */
  async publishedVariants(workspaceId: string): Promise<Array<PublishedVariant<Version>>> {
    return (await this.rows(this.statements.publishedVariants, [workspaceId])).map((row) => ({
      deployment: row.deployment,
      variant: row.variant,
      publish: row.publish,
      currentVersion: versionOfJson<Version>(row.current_version),
    }));
  }

  /**
   * Held until the transaction ends by an apply that changes which variants are published under
   * which tool names (prompts and workflows alike), so two concurrent applies cannot both take one.
   */
  async lockMcpToolNames(workspaceId: string): Promise<void> {
    await this.execute(this.statements.lockMcpToolNames, [workspaceId]);
  }

  /**
   * Held until the transaction ends by an apply, for every deployment name its file declares
   * (whether the deployment exists yet or not), so concurrent applies of one name run one after
   * the other: a row lock cannot hold a deployment that is not there yet, and two first applies
   * would both insert it. All of a file's names are locked at once in a fixed order, so two
   * files naming the same deployments in opposite orders cannot deadlock.
   */
  async lockDeploymentNames(workspaceId: string, names: readonly string[]): Promise<void> {
    await this.execute(this.statements.lockDeploymentNames, [workspaceId, names]);
  }

  /** Sets a variant's publish setting (not versioned: the variant keeps its version). */
  async setPublish(variantId: string, publish: McpPublish | null): Promise<void> {
    const variants: ObjectType<VariantShape<Version>> = this.entities.variant;
    await this.table(variants).update({ id: variantId }, { publish: publish as never });
  }

  /** Every version of a variant, newest first. */
  versionsOf(variantId: string): Promise<Version[]> {
    return this.table(this.entities.version).find({
      where: { variantId } as FindOptionsWhere<Version>,
      order: { version: 'DESC' } as FindOptionsOrder<Version>,
    });
  }

  /** A variant's version by number, or null. */
  versionNumbered(variantId: string, version: number): Promise<Version | null> {
    return this.table(this.entities.version).findOneBy({ variantId, version } as FindOptionsWhere<Version>);
  }

  createDeployment(values: NewDeployment): Promise<Deployment> {
    const deployments = this.table(this.entities.deployment);
    return deployments.save(deployments.create(values as DeepPartial<Deployment>));
  }

  /** Writes the deployment's webhook secret columns (a rotation). */
  async saveSecrets(deployment: Deployment): Promise<void> {
    await this.table(this.entities.deployment).save(deployment);
  }

  createVariant(deploymentId: string, name: string, publish: McpPublish | null): Promise<Variant> {
    const variants = this.table(this.entities.variant);
    return variants.save(variants.create({ deploymentId, name, currentVersionId: null, publish } as DeepPartial<Variant>));
  }

  /** A variant's newest version (served or staged), or null. */
  newestVersion(variantId: string): Promise<Version | null> {
    return this.table(this.entities.version).findOne({
      where: { variantId } as FindOptionsWhere<Version>,
      order: { version: 'DESC' } as FindOptionsOrder<Version>,
    });
  }

  /**
   * Adds the variant's next version and points the variant at it (unless `serve` is false: a
   * staged version), in one transaction (the caller's, when one is open).
   */
  addVersion(variantId: string, values: Omit<Version, keyof VersionColumns>, options: { serve?: boolean } = {}): Promise<Version> {
    return this.transaction(async () => {
      const versions = this.table(this.entities.version);
      const latest = await this.newestVersion(variantId);
      const version = await versions.save(
        versions.create({ ...values, variantId, version: (latest?.version ?? 0) + 1 } as DeepPartial<Version>),
      );
      if (options.serve === false) return version;
      // Typed by the columns the shared queries know, which the update names.
      const variants: ObjectType<VariantShape<Version>> = this.entities.variant;
      await this.table(variants).update({ id: variantId }, { currentVersionId: version.id });
      return version;
    });
  }
}
