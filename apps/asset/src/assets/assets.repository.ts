import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { AssetEntity } from './entities/asset.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a new asset row holds; its creation time is the database's. */
export type NewAsset = Omit<AssetEntity, 'sizeBytes' | 'createdAt'> & { sizeBytes: number };

const SQL = defineSql(__filename, {
  lockWorkspaceStorage: sql(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`),
  usedBytes: sql<{ used: string }>(`SELECT COALESCE(SUM("size_bytes"), 0)::text AS used FROM "asset"."assets" WHERE "workspace_id" = $1`),
  insert: sql<Pick<RowOf<AssetEntity>, 'created_at'>>(`
    INSERT INTO "asset"."assets" ("id", "workspace_id", "name", "content_type", "size_bytes", "sha256", "storage_key")
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    RETURNING "created_at"`),
  /**
   * A page of the workspace's assets, newest first: $1 workspace, $2 the cursor's asset id
   * (the rows after it in the order created_at, then id; an id not of the workspace answers
   * no rows), $3 the page size.
   */
  page: sql<RowOf<AssetEntity>>(`
    SELECT * FROM "asset"."assets"
    WHERE "workspace_id" = $1
      AND ($2::uuid IS NULL OR ("created_at", "id") < (
        SELECT "created_at", "id" FROM "asset"."assets" WHERE "id" = $2::uuid AND "workspace_id" = $1))
    ORDER BY "created_at" DESC, "id" DESC
    LIMIT $3`),
});

/** Every query of assets. */
@Injectable()
export class AssetsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's assets, newest first. */
  list(workspaceId: string): Promise<AssetEntity[]> {
    return this.table(AssetEntity).find({ where: { workspaceId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** A page of the workspace's assets, newest first, after `before`'s (none when it is not the workspace's). */
  async page(workspaceId: string, before: string | null, limit: number): Promise<AssetEntity[]> {
    if (before !== null && !UUID.test(before)) return [];
    return (await this.rows(SQL.page, [workspaceId, before, limit])).map(assetOfRow);
  }

  /** The workspace's asset with this id, or null (also for an id that is not a UUID, or another workspace's asset). */
  async find(workspaceId: string, assetId: string): Promise<AssetEntity | null> {
    return UUID.test(assetId) ? this.table(AssetEntity).findOneBy({ id: assetId, workspaceId }) : null;
  }

  /** The bytes the workspace's assets take. */
  async usedBytes(workspaceId: string): Promise<number> {
    const row = await this.row(SQL.usedBytes, [workspaceId]);
    return Number(row?.used ?? 0);
  }

  /**
   * Records the asset unless the workspace's assets would then take more than `capBytes`
   * (null: no cap), and answers null in that case. The sum and the insert run under a
   * per-workspace lock, so parallel uploads never take the workspace past its cap.
   */
  insertWithinCap(asset: NewAsset, capBytes: number | null): Promise<AssetEntity | null> {
    return this.transaction(async () => {
      await this.rows(SQL.lockWorkspaceStorage, [`asset-storage:${asset.workspaceId}`]);
      if (capBytes !== null && (await this.usedBytes(asset.workspaceId)) + asset.sizeBytes > capBytes) return null;
      const inserted = await this.row(SQL.insert, [
        asset.id,
        asset.workspaceId,
        asset.name,
        asset.contentType,
        asset.sizeBytes,
        asset.sha256,
        asset.storageKey,
      ]);
      if (!inserted) throw new Error('INSERT … RETURNING answered no row');
      return Object.assign(new AssetEntity(), { ...asset, sizeBytes: String(asset.sizeBytes), createdAt: inserted.created_at });
    });
  }
}

function assetOfRow(row: RowOf<AssetEntity>): AssetEntity {
  return Object.assign(new AssetEntity(), {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    contentType: row.content_type,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    storageKey: row.storage_key,
    createdAt: row.created_at,
  });
}
