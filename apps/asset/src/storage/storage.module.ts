import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_ENV } from '@waggle/platform';
import type { AssetEnv } from '../config/asset.env';
import { AssetStorage } from './asset-storage';
import { FilesystemAssetStorage } from './filesystem-asset-storage';
import { S3AssetStorage } from './s3-asset-storage';

/** The driver ASSET_STORAGE_DRIVER names, with its settings. */
export function createAssetStorage(env: AssetEnv): AssetStorage {
  if (env.ASSET_STORAGE_DRIVER === 's3') {
    return new S3AssetStorage({
      bucket: env.ASSET_S3_BUCKET,
      endpoint: env.ASSET_S3_ENDPOINT || undefined,
      region: env.ASSET_S3_REGION,
      credentials: env.ASSET_S3_ACCESS_KEY_ID
        ? { accessKeyId: env.ASSET_S3_ACCESS_KEY_ID, secretAccessKey: env.ASSET_S3_SECRET_ACCESS_KEY }
        : undefined,
      forcePathStyle: env.ASSET_S3_FORCE_PATH_STYLE,
    });
  }
  return new FilesystemAssetStorage(env.ASSET_STORAGE_DIR);
}

/** Provides AssetStorage: the configured driver. */
@Module({
  providers: [{ provide: AssetStorage, inject: [APP_ENV], useFactory: createAssetStorage }],
  exports: [AssetStorage],
})
export class AssetStorageModule implements OnApplicationShutdown {
  constructor(@Inject(AssetStorage) private readonly storage: AssetStorage) {}

  onApplicationShutdown(): void {
    if (this.storage instanceof S3AssetStorage) this.storage.close();
  }
}
