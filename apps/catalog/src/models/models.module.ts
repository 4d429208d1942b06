import { Module } from '@nestjs/common';
import { ModelsController } from './models.controller';
import { ModelsRepository } from './models.repository';
import { ModelsService } from './models.service';

/** The model catalog: loaded from the shipped or an operator's file, listed publicly, and routed for the services that call models. */
@Module({
  controllers: [ModelsController],
  providers: [ModelsRepository, ModelsService],
})
export class ModelsModule {}
