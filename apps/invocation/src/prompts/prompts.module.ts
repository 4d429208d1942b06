import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PROMPT_ENTITIES } from './entities';
import { PromptResolutionCache } from './prompt-resolution.cache';
import { PromptsController } from './prompts.controller';
import { PromptsService } from './prompts.service';

/** Prompt deployments, variants and immutable versions. */
@Module({
  imports: [TypeOrmModule.forFeature(PROMPT_ENTITIES)],
  controllers: [PromptsController],
  providers: [PromptsService, PromptResolutionCache],
  exports: [PromptResolutionCache],
})
export class PromptsModule {}
