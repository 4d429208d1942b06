import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ReleaseHistoryEntry, ReleaseProtection, StoredSplit } from '@waggle/contracts';
import { DataRepository, defineSql, sql } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { PromptReleaseEntity } from './entities/prompt-release.entity';
import { PromptVariantEntity } from './entities/prompt-variant.entity';
import { PromptVersionEntity } from './entities/prompt-version.entity';

/** A variant's release state, read under its row lock: its pointers, protection and split. */
export interface LockedVariant {
  id: string;
  deployment_id: string;
  deployment: string;
  name: string;
  current_version_id: string | null;
  /** The deployed version's number; null before the variant has one. */
  deployed_version: number | null;
  labels: Record<string, number>;
  protection: ReleaseProtection | null;
  split: StoredSplit | null;
}

/** A move to record (the entry without its id and time). */
export type NewRelease = Omit<PromptReleaseEntity, 'id' | 'at' | 'variant'>;

const VARIANT_BY_NAME = `
    SELECT v.id, v.deployment_id, d.name AS deployment, v.name, v.current_version_id, ver.version AS deployed_version,
           v.labels, v.protection, v.split
      FROM "${SCHEMA}"."prompt_variants" v
      JOIN "${SCHEMA}"."prompt_deployments" d ON d.id = v.deployment_id
      LEFT JOIN "${SCHEMA}"."prompt_versions" ver ON ver.id = v.current_version_id
     WHERE d.workspace_id = $1 AND d.name = $2 AND v.name = $3`;

const SQL = defineSql(__filename, {
  variantByName: sql<LockedVariant>(VARIANT_BY_NAME),
  /**
   * The variant by names in its workspace, its row locked until the transaction ends:
   * concurrent moves of one variant run one after the other, each reading the
   * pointers the previous one wrote.
   */
  lockVariant: sql<LockedVariant>(`${VARIANT_BY_NAME}
       FOR UPDATE OF v`),
  /** The variant by ids in its workspace (a webhook trigger names ids), without a lock. */
  variantByIds: sql<LockedVariant>(`
    SELECT v.id, v.deployment_id, d.name AS deployment, v.name, v.current_version_id, ver.version AS deployed_version,
           v.labels, v.protection, v.split
      FROM "${SCHEMA}"."prompt_variants" v
      JOIN "${SCHEMA}"."prompt_deployments" d ON d.id = v.deployment_id
      LEFT JOIN "${SCHEMA}"."prompt_versions" ver ON ver.id = v.current_version_id
     WHERE d.workspace_id = $1 AND d.id = $2 AND v.id = $3`),
});

/** Prompt variants' release pointers, protection and split, and the append-only history of their moves. */
@Injectable()
export class PromptReleasesRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The variant by names, unlocked; null when the workspace has no such deployment or variant. */
  variantByName(workspaceId: string, deployment: string, variant: string): Promise<LockedVariant | null> {
    return this.row(SQL.variantByName, [workspaceId, deployment, variant]);
  }

  /** The variant, row-locked until the transaction ends; null when the workspace has no such deployment or variant. */
  lockVariant(workspaceId: string, deployment: string, variant: string): Promise<LockedVariant | null> {
    return this.row(SQL.lockVariant, [workspaceId, deployment, variant]);
  }

  variantByIds(workspaceId: string, deploymentId: string, variantId: string): Promise<LockedVariant | null> {
    return this.row(SQL.variantByIds, [workspaceId, deploymentId, variantId]);
  }

  version(variantId: string, version: number): Promise<PromptVersionEntity | null> {
    return this.table(PromptVersionEntity).findOneBy({ variantId, version });
  }

  newestVersion(variantId: string): Promise<PromptVersionEntity | null> {
    return this.table(PromptVersionEntity).findOne({ where: { variantId }, order: { version: 'DESC' } });
  }

  async setDeployed(variantId: string, versionId: string): Promise<void> {
    await this.table(PromptVariantEntity).update({ id: variantId }, { currentVersionId: versionId });
  }

  async setLabels(variantId: string, labels: Record<string, number>): Promise<void> {
    await this.table(PromptVariantEntity).update({ id: variantId }, { labels });
  }

  async setProtection(variantId: string, protection: ReleaseProtection): Promise<void> {
    await this.table(PromptVariantEntity).update({ id: variantId }, { protection });
  }

  async setSplit(variantId: string, split: StoredSplit | null): Promise<void> {
    // TypeORM's update types a jsonb column as its deep partial; null clears it.
    await this.table(PromptVariantEntity).update({ id: variantId }, { split: split as never });
  }

  /** Appends a move to the history. */
  async record(release: NewRelease): Promise<ReleaseHistoryEntry> {
    const releases = this.table(PromptReleaseEntity);
    return historyEntryOf(await releases.save(releases.create(release)));
  }

  /** The variant's moves (of one pointer, when named), newest first. */
  async history(variantId: string, pointer?: string): Promise<ReleaseHistoryEntry[]> {
    const releases = await this.table(PromptReleaseEntity).find({
      where: { variantId, ...(pointer !== undefined && { pointer }) },
      order: { at: 'DESC', id: 'DESC' },
      take: pointer === undefined ? 1_000 : 1,
    });
    return releases.map(historyEntryOf);
  }
}

function historyEntryOf(release: PromptReleaseEntity): ReleaseHistoryEntry {
  return {
    pointer: release.pointer,
    from: release.fromVersion,
    to: release.toVersion,
    actor: release.actor,
    reason: release.reason,
    experiment_run_id: release.experimentRunId,
    override: release.override,
    at: release.at.toISOString(),
  };
}
