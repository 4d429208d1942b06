import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ModelPricesController } from './model-prices.controller';
import { ModelsController } from './models.controller';

/** The active model catalog on `/v1/public/models` and `/v1/models`, and its prices on `/v1/private/model_prices`. */
@Module({ imports: [AuthModule], controllers: [ModelsController, ModelPricesController] })
export class ModelsModule {}
