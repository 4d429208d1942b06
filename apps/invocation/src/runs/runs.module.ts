import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LedgerWriter } from '../ledger/ledger-writer';
import { RequestRecordEntity } from '../ledger/request-record.entity';
import { RequestsService } from '../ledger/requests.service';
import { PromptDeploymentEntity } from '../prompts/entities/prompt-deployment.entity';
import { PromptVariantEntity } from '../prompts/entities/prompt-variant.entity';
import { PromptVersionEntity } from '../prompts/entities/prompt-version.entity';
import { PromptsModule } from '../prompts/prompts.module';
import { ModelRoutes } from './model-routes';
import { PromptRunner } from './prompt-runner.service';
import { RunCancellation } from './run-cancellation';
import { RunsController } from './runs.controller';
import { PromptTriggerWorker } from './prompt-trigger.worker';
import { REDIS_CLIENT } from '@waggle/platform';
import { PromptTriggerQueue } from '@waggle/webhooks';
import type Redis from 'ioredis';

/** Prompt runs (invoked and webhook-triggered), their cancellation and the request ledger. */
@Module({
  imports: [TypeOrmModule.forFeature([PromptDeploymentEntity, PromptVariantEntity, PromptVersionEntity, RequestRecordEntity]), PromptsModule],
  controllers: [RunsController],
  providers: [
    ModelRoutes,
    LedgerWriter,
    RunCancellation,
    PromptRunner,
    RequestsService,
    PromptTriggerWorker,
    { provide: PromptTriggerQueue, useFactory: (redis: Redis) => new PromptTriggerQueue(redis), inject: [REDIS_CLIENT] },
  ],
})
export class RunsModule {}
