import { Module } from '@nestjs/common';
import { DatasetsController } from './datasets.controller';
import { DatasetsRepository } from './datasets.repository';
import { DatasetsService } from './datasets.service';

/**
 * Datasets and their versions (the spec's decisions on experiments and releases, "datasets"):
 * the private API's patterns, and DatasetsService for experiment runs, which read a version and
 * its rows through it (`version`, `rows`).
 */
@Module({
  controllers: [DatasetsController],
  providers: [DatasetsRepository, DatasetsService],
  exports: [DatasetsService],
})
export class DatasetsModule {}
