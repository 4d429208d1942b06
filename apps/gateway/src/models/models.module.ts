import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ModelsController } from './models.controller';

/** The active model catalog on `/v1/public/models` and `/v1/models`. */
@Module({ imports: [AuthModule], controllers: [ModelsController] })
export class ModelsModule {}
