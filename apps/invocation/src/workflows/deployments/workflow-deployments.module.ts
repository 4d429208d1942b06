import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { WORKFLOW_DEPLOYMENT_ENTITIES } from './entities';
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
  imports: [TypeOrmModule.forFeature(WORKFLOW_DEPLOYMENT_ENTITIES), WebhooksModule],
  controllers: [WorkflowDeploymentsController],
  providers: [WorkflowDeploymentsRepository, WorkflowDeploymentsService, WorkflowResolutionCache, WorkflowWebhookSecrets],
  exports: [WorkflowDeploymentsService],
})
export class WorkflowDeploymentsModule {}
