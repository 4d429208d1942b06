import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig, NatsRpcClient, startServiceApp } from '@waggle/platform';
import { ProvidersModule } from '@waggle/providers';
import { RunLifecycleModule } from '@waggle/runs';
import { createGuardedDispatcher } from '@waggle/webhooks';
import { InvocationEnv } from './config/invocation.env';
import { dataSourceOptions } from './database/data-source';
import { ExperimentsModule } from './experiments/experiments.module';
import { DatasetsModule } from './datasets/datasets.module';
import { GovernanceAdminModule } from './governance-projection/governance-admin.module';
import { LedgerDeadLetters } from './ledger/ledger-dead-letters';
import { LedgerModule } from './ledger/ledger.module';
import { McpToolsModule } from './mcp-tools/mcp-tools.module';
import { PromptsModule } from './prompts/prompts.module';
import { ReleasesModule } from './releases/releases.module';
import { ProviderCredentialsModule, providerUrlPolicy } from './provider-credentials/provider-credentials.module';
import { PromptRunsModule } from './prompt-runs/prompt-runs.module';
import { RunCancellationModule } from './run-cancellation/run-cancellation.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkflowDeploymentsModule } from './workflows/deployments/workflow-deployments.module';
import { WorkflowRunsModule } from './workflows/workflow-runs.module';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(InvocationEnv);
  const database = TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL));
  return startServiceApp({
    service: 'invocation',
    env,
    dependencies: ['postgres', 'nats', 'redis'],
    database,
    imports: [
      RunLifecycleModule,
      ProvidersModule.forRoot({
        env,
        catalogTransport: NatsRpcClient,
        workspaceDispatcher: createGuardedDispatcher(providerUrlPolicy(env)),
      }),
      ProviderCredentialsModule,
      PromptsModule,
      ReleasesModule,
      PromptRunsModule,
      LedgerModule,
      WebhooksModule,
      WorkflowDeploymentsModule,
      WorkflowRunsModule,
      McpToolsModule,
      RunCancellationModule,
      GovernanceAdminModule,
      ExperimentsModule,
      DatasetsModule,
    ],
    deadLetters: { queues: ['prompt-runs', 'workflow-runs', 'experiment-cells'], sources: [LedgerDeadLetters] },
  });
}
