import { Module } from '@nestjs/common';
import { PromptsRepository } from '../prompts/prompts.repository';
import { WorkflowDeploymentsRepository } from '../workflows/deployments/workflow-deployments.repository';
import { McpToolsController } from './mcp-tools.controller';
import { McpToolsService } from './mcp-tools.service';

/**
 * The prompt and workflow variants a workspace publishes as MCP tools (the spec's decisions,
 * MCP): their list for the gateway, and the uniqueness of their names, which both kinds' applies
 * check (so this module reads both kinds' variants itself, and neither kind's module imports the other's).
 */
@Module({
  controllers: [McpToolsController],
  providers: [PromptsRepository, WorkflowDeploymentsRepository, McpToolsService],
  exports: [McpToolsService],
})
export class McpToolsModule {}
