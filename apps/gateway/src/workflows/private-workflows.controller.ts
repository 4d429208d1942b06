import { OmitType } from '@nestjs/swagger';
import { ApplyWorkflowsRequest, InvocationPatterns } from '@waggle/contracts';
import { privateDeploymentsController } from '../deployments/private-deployments.controller';

/** The definition file's `workflows:` list, as JSON: the contract's apply request for the key's workspace. */
class ApplyWorkflowsBody extends OmitType(ApplyWorkflowsRequest, ['workspace_id'] as const) {}

/** First-party management of workflow deployments (`v1/private/workflows`; the CLI's `workflow` commands too). */
export const PrivateWorkflowsController = privateDeploymentsController({
  path: 'v1/private/workflows',
  key: 'workflows',
  applyBody: ApplyWorkflowsBody,
  patterns: {
    list: InvocationPatterns.listWorkflows,
    apply: InvocationPatterns.applyWorkflows,
    versions: InvocationPatterns.listWorkflowVersions,
    webhookSecret: InvocationPatterns.getWorkflowWebhookSecret,
    rotateWebhookSecret: InvocationPatterns.rotateWorkflowWebhookSecret,
  },
});
