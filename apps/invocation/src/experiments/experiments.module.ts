import { Module } from '@nestjs/common';
import { QueueNames } from '@waggle/contracts';
import { registerQueues } from '@waggle/platform';
import { DatasetsModule } from '../datasets/datasets.module';
import { PromptRunsModule } from '../prompt-runs/prompt-runs.module';
import { PromptsModule } from '../prompts/prompts.module';
import { EvaluatorsModule } from './evaluators/evaluators.module';
import { ExperimentCandidates } from './experiment-candidates';
import { ExperimentCellWorker } from './experiment-cell.worker';
import { ExperimentReleaseEvidence } from './experiment-release-evidence';
import { ExperimentRunSettlement } from './experiment-run-settlement';
import { ExperimentRunsController } from './experiment-runs.controller';
import { ExperimentRunsRepository } from './experiment-runs.repository';
import { ExperimentRunsService } from './experiment-runs.service';
import { ReleaseEvidence } from './release-evidence';

/**
 * Experiment runs (the spec's decisions: experiment runs, results): their patterns, the
 * `experiment-cells` worker, what the run-cancellation route asks of them (ExperimentRunsService),
 * and the release gate's evidence (ReleaseEvidence).
 */
@Module({
  imports: [PromptsModule, PromptRunsModule, DatasetsModule, EvaluatorsModule, registerQueues([QueueNames.experimentCells])],
  controllers: [ExperimentRunsController],
  providers: [
    ExperimentRunsRepository,
    ExperimentRunsService,
    ExperimentCandidates,
    ExperimentRunSettlement,
    ExperimentCellWorker,
    { provide: ReleaseEvidence, useClass: ExperimentReleaseEvidence },
  ],
  exports: [ExperimentRunsService, ReleaseEvidence],
})
export class ExperimentsModule {}
