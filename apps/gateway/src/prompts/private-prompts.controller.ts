import { OmitType } from '@nestjs/swagger';
import { ApplyPromptsRequest, InvocationPatterns } from '@waggle/contracts';
import { privateDeploymentsController } from '../deployments/private-deployments.controller';

/** The definition file's shape, as JSON: the contract's apply request for the key's workspace. */
class ApplyPromptsBody extends OmitType(ApplyPromptsRequest, ['workspace_id'] as const) {}

/** First-party management of prompt deployments (`v1/private/prompts`). */
export const PrivatePromptsController = privateDeploymentsController({
  path: 'v1/private/prompts',
  key: 'prompts',
  applyBody: ApplyPromptsBody,
  patterns: {
    list: InvocationPatterns.listPrompts,
    apply: InvocationPatterns.applyPrompts,
    versions: InvocationPatterns.listPromptVersions,
    webhookSecret: InvocationPatterns.getWebhookSecret,
    rotateWebhookSecret: InvocationPatterns.rotateWebhookSecret,
  },
});
