import { Module } from '@nestjs/common';
import { FileStaging } from '@waggle/platform';
import { AuthModule } from '../auth/auth.module';
import { AssetUploads } from './asset-uploads';
import { AssetsController } from './assets.controller';
import { PrivateAssetsController } from './private-assets.controller';

/** A workspace's assets: list (all, or a private page at a time), and multipart upload streamed through the staging bucket. */
@Module({ imports: [AuthModule], controllers: [AssetsController, PrivateAssetsController], providers: [FileStaging, AssetUploads] })
export class AssetsModule {}
