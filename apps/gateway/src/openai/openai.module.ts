import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChatCompletionsController } from './chat-completions.controller';
import { OpenAiModelsController } from './models.controller';
import { OpenAiRuns } from './openai-runs';
import { ResponsesController } from './responses.controller';

/**
 * The OpenAI-compatible surface under /openai/v1: its routes. Its edge (openai-edge.ts) is installed by
 * bootstrap, and the exception filter answers its refusals in OpenAI's shape (openai-errors.ts).
 */
@Module({
  imports: [AuthModule],
  controllers: [ChatCompletionsController, ResponsesController, OpenAiModelsController],
  providers: [OpenAiRuns],
})
export class OpenAiModule {}
