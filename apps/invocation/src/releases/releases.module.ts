import { Module } from '@nestjs/common';
import { ExperimentsModule } from '../experiments/experiments.module';
import { PromptsModule } from '../prompts/prompts.module';
import { ReleasesController } from './releases.controller';
import { ReleasesService } from './releases.service';

/**
 * Release pointers of prompt variants: labels, promotion, rollback, history, protection and the
 * release gate, whose evidence the experiment runs give (ReleaseEvidence).
 */
@Module({
  imports: [PromptsModule, ExperimentsModule],
  controllers: [ReleasesController],
  providers: [ReleasesService],
})
export class ReleasesModule {}
