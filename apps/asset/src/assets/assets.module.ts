import { Module } from '@nestjs/common';
import { FileStaging } from '@waggle/platform';
import { AssetStorageModule } from '../storage/storage.module';
import { AssetsController } from './assets.controller';
import { AssetsRepository } from './assets.repository';
import { AssetsService } from './assets.service';

/** Assets over NATS: store a staged upload, list, get, stage for another service. */
@Module({
  imports: [AssetStorageModule],
  controllers: [AssetsController],
  providers: [AssetsRepository, AssetsService, FileStaging],
})
export class AssetsModule {}
