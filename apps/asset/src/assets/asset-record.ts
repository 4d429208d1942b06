import type { AssetRecord } from '@waggle/contracts';
import type { AssetEntity } from './entities/asset.entity';

export function toAssetRecord(asset: AssetEntity): AssetRecord {
  return {
    id: asset.id,
    name: asset.name,
    content_type: asset.contentType,
    size_bytes: Number(asset.sizeBytes),
    sha256: asset.sha256,
    created_at: asset.createdAt.toISOString(),
  };
}
