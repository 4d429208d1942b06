import { PromptDeploymentEntity } from './prompt-deployment.entity';
import { PromptReleaseEntity } from './prompt-release.entity';
import { PromptVariantEntity } from './prompt-variant.entity';
import { PromptVersionEntity } from './prompt-version.entity';

export const PROMPT_ENTITIES = [PromptDeploymentEntity, PromptVariantEntity, PromptVersionEntity, PromptReleaseEntity];
