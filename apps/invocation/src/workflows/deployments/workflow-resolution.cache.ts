import { Injectable } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { BroadcastCache, NatsRpcClient } from '@waggle/platform';
import { SecretSealer } from '@waggle/webhooks';
import type { WorkflowVariant } from '@waggle/workflows';
import { LRUCache } from 'lru-cache';
import {
  deploymentNotFound,
  variantNotFound,
  WorkflowDeploymentsRepository,
  type WorkflowVersionRow,
} from './workflow-deployments.repository';

/** Published to every invocation replica after an apply or a secret rotation changed a workspace's workflows. */
export const WORKFLOWS_CHANGED_SUBJECT = 'invocation.workflows.changed';

/** Which immutable version of a workflow, by id and by name (what a run records). */
export interface WorkflowVersionIdentity {
  deploymentId: string;
  deploymentName: string;
  variantId: string;
  variantName: string;
  versionId: string;
  version: number;
}

/** Exactly one immutable version of a workflow: what a run executes. */
export interface PinnedWorkflow extends WorkflowVersionIdentity {
  /** The parsed variant with its defaults applied. */
  definition: WorkflowVariant;
}

/** What a new run of a workflow executes, and the secret its callback is signed with. */
export interface ResolvedWorkflow extends PinnedWorkflow {
  /** The deployment's current webhook secret, opened on first use: only an async run's answer shows it. */
  webhookSecret(): string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toPinned(row: WorkflowVersionRow): PinnedWorkflow {
  return {
    deploymentId: row.deployment_id,
    deploymentName: row.deployment_name,
    variantId: row.variant_id,
    variantName: row.variant_name,
    versionId: row.version_id,
    version: row.version,
    definition: row.definition,
  };
}

/**
 * Which version a workflow run executes, kept in memory like prompt resolution: versions are
 * immutable, and only an apply moves a variant and only a rotation changes the secret, so
 * an invoke need not ask PostgreSQL. Both clear the workspace's entries here at once and,
 * through NATS, on every other replica (a minute is the backstop). A pinned version never
 * changes at all.
 */
@Injectable()
export class WorkflowResolutionCache extends BroadcastCache<ResolvedWorkflow> {
  private readonly versions = new LRUCache<string, { workspaceId: string; workflow: PinnedWorkflow }>({ max: 1_000 });

  constructor(
    private readonly deployments: WorkflowDeploymentsRepository,
    private readonly sealer: SecretSealer,
    rpc: NatsRpcClient,
  ) {
    super(rpc, { subject: WORKFLOWS_CHANGED_SUBJECT, scopeField: 'workspace_id', ttlMs: 60_000, maxScopes: 1_000 });
  }

  /** The variant's current version (resource_not_found for an unknown deployment or variant). */
  resolve(workspaceId: string, deployment: string, variant: string): Promise<ResolvedWorkflow> {
    return this.read(workspaceId, JSON.stringify([deployment, variant]), async () => {
      const row = await this.deployments.current(workspaceId, deployment, variant);
      if (row.deployment_id === null) throw deploymentNotFound(deployment);
      if (row.version_id === null) throw variantNotFound(variant);
      const sealed = row.webhook_secret_sealed;
      let opened: string | undefined;
      return { ...toPinned(row), webhookSecret: () => (opened ??= this.sealer.open(sealed)) };
    });
  }

  /**
   * Exactly the version a run was accepted with, whatever the variant points at now;
   * resource_not_found when it is gone or belongs to another workspace.
   */
  async pinned(workspaceId: string, versionId: string): Promise<PinnedWorkflow> {
    const notFound = () => new WaggleException('resource_not_found', { detail: 'workflow_version_not_found', params: { id: versionId } });
    if (!UUID.test(versionId)) throw notFound();
    let pinned = this.versions.get(versionId);
    if (!pinned) {
      const row = await this.deployments.versionById(versionId);
      if (!row) throw notFound();
      pinned = { workspaceId: row.workspace_id, workflow: toPinned(row) };
      this.versions.set(versionId, pinned);
    }
    if (pinned.workspaceId !== workspaceId) throw notFound();
    return pinned.workflow;
  }
}
