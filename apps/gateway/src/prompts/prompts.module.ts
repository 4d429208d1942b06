import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PrivatePromptsController } from './private-prompts.controller';
import { PromptInvokeController } from './prompt-invoke.controller';

/** Prompt invoke (whole and streamed) and the private management of prompt deployments. */
@Module({ imports: [AuthModule], controllers: [PromptInvokeController, PrivatePromptsController] })
export class PromptsModule {}
