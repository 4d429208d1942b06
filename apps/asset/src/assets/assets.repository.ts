import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AssetEntity } from './entities/asset.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a new asset row holds; its creation time is the database's. */
export type NewAsset = Omit<AssetEntity, 'sizeBytes' | 'createdAt'> & { sizeBytes: number };

/** Every query of assets. */
@Injectable()
export class AssetsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The workspace's assets, newest first. */
  list(workspaceId: string): Promise<AssetEntity[]> {
    return this.dataSource.getRepository(AssetEntity).find({ where: { workspaceId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** The workspace's asset with this id, or null (also for an id that is not a UUID, or another workspace's asset). */
  async find(workspaceId: string, assetId: string): Promise<AssetEntity | null> {
    return UUID.test(assetId) ? this.dataSource.getRepository(AssetEntity).findOneBy({ id: assetId, workspaceId }) : null;
  }

  /** The bytes the workspace's assets take. */
  usedBytes(workspaceId: string): Promise<number> {
    return this.usedBytesWith(this.dataSource.manager, workspaceId);
  }

  /**
   * Records the asset unless the workspace's assets would then take more than `capBytes`
   * (null: no cap), and answers null in that case. The sum and the insert run under a
   * per-workspace lock, so parallel uploads never take the workspace past its cap.
   */
  insertWithinCap(asset: NewAsset, capBytes: number | null): Promise<AssetEntity | null> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`asset-storage:${asset.workspaceId}`]);
      if (capBytes !== null && (await this.usedBytesWith(manager, asset.workspaceId)) + asset.sizeBytes > capBytes) return null;
      const rows = (await manager.query(
        'INSERT INTO "asset"."assets" ("id", "workspace_id", "name", "content_type", "size_bytes", "sha256", "storage_key") VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING "created_at"',
        [asset.id, asset.workspaceId, asset.name, asset.contentType, asset.sizeBytes, asset.sha256, asset.storageKey],
      )) as Array<{ created_at: Date }>;
      return Object.assign(new AssetEntity(), { ...asset, sizeBytes: String(asset.sizeBytes), createdAt: rows[0].created_at });
    });
  }

  private async usedBytesWith(manager: EntityManager, workspaceId: string): Promise<number> {
    const rows = (await manager.query(
      'SELECT COALESCE(SUM("size_bytes"), 0)::text AS used FROM "asset"."assets" WHERE "workspace_id" = $1',
      [workspaceId],
    )) as Array<{ used: string }>;
    return Number(rows[0].used);
  }
}
