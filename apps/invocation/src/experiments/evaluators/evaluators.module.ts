import { Module } from '@nestjs/common';
import { ProviderCredentialsModule } from '../../provider-credentials/provider-credentials.module';
import { CellEvaluators } from './cell-evaluators';
import { LlmJudge } from './llm-judge';
import { EmbeddingSimilarity } from './similarity';

/**
 * The experiment runs' evaluators: CellEvaluators checks a run's list and grades its cells. The
 * provider registry and model routes come from the app's global ProvidersModule, the ledger's
 * publisher from the global RunLifecycleModule.
 */
@Module({
  imports: [ProviderCredentialsModule],
  providers: [CellEvaluators, LlmJudge, EmbeddingSimilarity],
  exports: [CellEvaluators],
})
export class EvaluatorsModule {}
