import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, queueRootModule } from '@waggle/platform';
import { RunLifecycleModule } from '@waggle/runs';
import type { GatewayEnv } from './config/gateway.env';
import { AgentsModule } from './agents/agents.module';
import { KnowledgeBasesModule } from './knowledge-bases/knowledge-bases.module';
import { GovernanceModule } from './governance/governance.module';
import { WorkspaceModule } from './workspace/workspace.module';
import { ReleasesModule } from './releases/releases.module';
import { McpServersModule } from './mcp-servers/mcp-servers.module';
import { ProviderCredentialsModule } from './provider-credentials/provider-credentials.module';
import { McpModule } from './mcp/mcp.module';
import { WorkflowRunsModule } from './workflows/workflow-runs.module';
import { AssetsModule } from './assets/assets.module';
import { DatasetsModule } from './datasets/datasets.module';
import { ExperimentsModule } from './experiments/experiments.module';
import { ErrorCodesModule } from './error-codes/error-codes.module';
import { ServicesReadinessReporter } from './health/services-readiness.reporter';
import { ModelsModule } from './models/models.module';
import { OpenAiModule } from './openai/openai.module';
import { OpenApiModule } from './openapi/openapi.module';
import { PromptsModule } from './prompts/prompts.module';
import { RequestsModule } from './requests/requests.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkflowsModule } from './workflows/workflows.module';

/** The gateway: the platform (readiness asks every service) and one module per public feature. */
@Module({})
export class GatewayModule {
  static forRoot(env: GatewayEnv): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        PlatformModule.forApp({
          app: 'gateway',
          env,
          dependencies: ['nats', 'redis'],
          readinessReporters: [ServicesReadinessReporter],
          rpcTimeoutMs: env.NATS_REQUEST_TIMEOUT_MS,
          // Written by configureGatewayApp's createAccessLog.
          accessLog: 'own',
        }),
        RunLifecycleModule,
        queueRootModule(),
        ErrorCodesModule,
        OpenApiModule,
        ModelsModule,
        PromptsModule,
        RequestsModule,
        WebhooksModule,
        AgentsModule,
        McpServersModule,
        GovernanceModule,
        WorkspaceModule,
        DatasetsModule,
        ExperimentsModule,
        ReleasesModule,
        ProviderCredentialsModule,
        KnowledgeBasesModule,
        AssetsModule,
        WorkflowsModule,
        WorkflowRunsModule,
        OpenAiModule,
        McpModule,
      ],
    };
  }
}
