import { Module } from '@nestjs/common';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { McpToolsModule } from '../../mcp-tools/mcp-tools.module';
import { WorkflowDeploymentApplier } from './workflow-deployment-applier';
import { WorkflowDeploymentsController } from './workflow-deployments.controller';
import { WorkflowDeploymentsRepository } from './workflow-deployments.repository';
import { WorkflowDeploymentsService } from './workflow-deployments.service';
import { WorkflowResolutionCache } from './workflow-resolution.cache';
import { WorkflowWebhookSecrets } from './workflow-webhook-secrets.service';

/**
 * Workflow deployments, variants and immutable versions: apply, list, their webhook
 * secrets, and resolution for the workflow engine (which imports this module for
 * WorkflowDeploymentsService).
 */
@Module({
  imports: [WebhooksModule, McpToolsModule],
  controllers: [WorkflowDeploymentsController],
  providers: [
    WorkflowDeploymentsRepository,
    WorkflowDeploymentsService,
    WorkflowDeploymentApplier,
    WorkflowResolutionCache,
    WorkflowWebhookSecrets,
  ],
  exports: [WorkflowDeploymentsService],
})
export class WorkflowDeploymentsModule {}
