import { RequestRecordEntity } from '../../ledger/request-record.entity';
import { PromptDeploymentEntity } from './prompt-deployment.entity';
import { PromptVariantEntity } from './prompt-variant.entity';
import { PromptVersionEntity } from './prompt-version.entity';

export const PROMPT_ENTITIES = [PromptDeploymentEntity, PromptVariantEntity, PromptVersionEntity];

/** Every table of the invocation schema. */
export const INVOCATION_ENTITIES = [...PROMPT_ENTITIES, RequestRecordEntity];
