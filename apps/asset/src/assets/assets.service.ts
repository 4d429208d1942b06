import { Injectable, Logger } from '@nestjs/common';
import {
  ASSET_PAGE_CHUNK,
  CatalogPatterns,
  DEFAULT_PAGE_LIMIT,
  send,
  type AssetPageRequest,
  type AssetRecord,
  type StagedAsset,
  type StoreAssetRequest,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { FileStaging, NatsRpcClient } from '@waggle/platform';
import { randomUUID } from 'node:crypto';
import { AssetStorage } from '../storage/asset-storage';
import { toAssetRecord } from './asset-record';
import { ContentInspector } from './content-inspector';
import { AssetsRepository } from './assets.repository';
import type { AssetEntity } from './entities/asset.entity';

/** decisions: an unknown, another workspace's or non-UUID asset id answers 422 resource_not_found "Asset not found". */
export function assetNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { status: 422, detail: 'asset_not_found' });
}

function storageLimitReached(): WaggleException {
  return new WaggleException('asset_storage_limit_reached');
}

/**
 * A workspace's assets: uploads staged by the gateway moved into the asset storage (hashed
 * and typed on the way), listed, read, and staged again for another service to read.
 */
@Injectable()
export class AssetsService {
  private readonly logger = new Logger(AssetsService.name);

  constructor(
    private readonly assets: AssetsRepository,
    private readonly storage: AssetStorage,
    private readonly staging: FileStaging,
    private readonly rpc: NatsRpcClient,
  ) {}

  async list(workspaceId: string): Promise<AssetRecord[]> {
    return (await this.assets.list(workspaceId)).map(toAssetRecord);
  }

  /** A page of the workspace's assets, newest first, in chunks of at most ASSET_PAGE_CHUNK (at least one, possibly empty). */
  async *page(request: AssetPageRequest): AsyncGenerator<AssetRecord[]> {
    const page = (await this.assets.page(request.workspace_id, request.before ?? null, request.limit ?? DEFAULT_PAGE_LIMIT)).map(
      toAssetRecord,
    );
    for (let start = 0; start === 0 || start < page.length; start += ASSET_PAGE_CHUNK) yield page.slice(start, start + ASSET_PAGE_CHUNK);
  }

  async get(workspaceId: string, assetId: string): Promise<AssetRecord> {
    return toAssetRecord(await this.find(workspaceId, assetId));
  }

  private async find(workspaceId: string, assetId: string): Promise<AssetEntity> {
    const asset = await this.assets.find(workspaceId, assetId);
    if (!asset) throw assetNotFound();
    return asset;
  }

  /**
   * Moves a staged upload into storage and records it. The plan's asset storage is checked
   * before any byte is written (by the declared size) and again, exactly, under a per-workspace
   * lock around the sum and the insert, so parallel uploads never take the workspace past it;
   * an upload refused there has its stored bytes removed. The staged object is always deleted.
   */
  async store(request: StoreAssetRequest): Promise<AssetRecord> {
    try {
      return await this.storeStaged(request);
    } finally {
      await this.staging
        .remove(request.staged_object)
        .catch((error: unknown) =>
          this.logger.warn(
            { err: error, staged_object: request.staged_object },
            'a staged upload could not be deleted (the bucket TTL removes it)',
          ),
        );
    }
  }

  private async storeStaged(request: StoreAssetRequest): Promise<AssetRecord> {
    const workspaceId = request.workspace_id;
    const cap = await this.storageCap(workspaceId);
    if (cap !== null && (await this.assets.usedBytes(workspaceId)) + request.size_bytes > cap) throw storageLimitReached();

    const staged = await this.staging.open(request.staged_object);
    if (!staged)
      throw new WaggleException('validation_error', {
        detail: 'staged_upload_missing',
        details: [{ field: 'staged_object', messages: ['no such staged object'] }],
      });
    if (staged.info.size !== request.size_bytes) {
      staged.stream.destroy();
      throw new WaggleException('validation_error', {
        detail: 'staged_upload_size',
        details: [{ field: 'size_bytes', messages: [`the staged object has ${staged.info.size} bytes`] }],
      });
    }

    const id = randomUUID();
    const storageKey = `${workspaceId}/${id}`;
    const inspector = new ContentInspector();
    staged.stream.on('error', (error) => inspector.destroy(error));
    await this.storage.write(storageKey, staged.stream.pipe(inspector));
    try {
      if (inspector.byteCount !== request.size_bytes) throw new WaggleException('validation_error', { detail: 'staged_upload_size' });
      const contentType = await inspector.contentType(request.declared_content_type);
      const sha256 = inspector.sha256();
      const asset = await this.assets.insertWithinCap(
        { id, workspaceId, name: request.name, contentType, sizeBytes: inspector.byteCount, sha256, storageKey },
        cap,
      );
      if (!asset) throw storageLimitReached();
      this.logger.log({ msg: 'asset stored', asset_id: id, size_bytes: inspector.byteCount });
      return toAssetRecord(asset);
    } catch (error) {
      await this.storage
        .remove(storageKey)
        .catch((removal: unknown) =>
          this.logger.error({ err: removal, storage_key: storageKey }, 'the bytes of a refused upload could not be removed'),
        );
      throw error;
    }
  }

  /** Copies an asset's bytes into the staging bucket as `asset/<uuid>`, for its reader to consume and delete. */
  async stage(workspaceId: string, assetId: string): Promise<StagedAsset> {
    const asset = await this.find(workspaceId, assetId);
    const stagedObject = `asset/${randomUUID()}`;
    await this.staging.put(stagedObject, await this.storage.read(asset.storageKey));
    return { staged_object: stagedObject, asset: toAssetRecord(asset) };
  }

  /** The plan's asset_storage_bytes for the workspace (overrides applied); null = unlimited. */
  private async storageCap(workspaceId: string): Promise<number | null> {
    const workspace = await send(this.rpc, CatalogPatterns.getWorkspace, { workspace_id: workspaceId });
    return workspace.limits.asset_storage_bytes;
  }
}
