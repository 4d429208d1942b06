import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { DatasetsController } from './datasets.controller';

/** The datasets' private routes (documented), owned by the invocation service. */
@Module({ imports: [AuthModule], controllers: [DatasetsController] })
export class DatasetsModule {}
