import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChatCompletionsController } from './chat-completions.controller';
import { OpenAiModelsController } from './models.controller';
import { OpenAiRuns } from './openai-runs';
import { ResponsesController } from './responses.controller';

/** The OpenAI-compatible surface under /openai/v1 (decisions): its routes; its edge and error shape are in bootstrap and the exception filter. */
@Module({
  imports: [AuthModule],
  controllers: [ChatCompletionsController, ResponsesController, OpenAiModelsController],
  providers: [OpenAiRuns],
})
export class OpenAiModule {}
