import type { INestApplication } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadConfig, NatsRpcClient, startServiceApp } from '@waggle/platform';
import { ProvidersModule } from '@waggle/providers';
import { RunLifecycleModule } from '@waggle/runs';
import { CallbackUrlPolicy, createGuardedDispatcher } from '@waggle/webhooks';
import { AgentsModule } from './agents/agents.module';
import { AgentEnv } from './config/agent.env';
import { dataSourceOptions } from './database/data-source';
import { McpServersModule } from './mcp-servers/mcp-servers.module';
import { RunsModule } from './runs/runs.module';
import { WebhooksModule } from './webhooks/webhooks.module';

export function bootstrap(): Promise<INestApplication> {
  const env = loadConfig(AgentEnv);
  const database = TypeOrmModule.forRoot(dataSourceOptions(env.DATABASE_URL));
  return startServiceApp({
    service: 'agent',
    env,
    dependencies: ['postgres', 'nats', 'redis'],
    database,
    imports: [
      RunLifecycleModule,
      ProvidersModule.forRoot({
        env,
        catalogTransport: NatsRpcClient,
        // Base URLs workspaces gave with their own provider keys: callers' URLs, so through the SSRF guard.
        workspaceDispatcher: createGuardedDispatcher(
          new CallbackUrlPolicy(env.PROVIDER_URL_ALLOWLIST, {
            url: 'url_word_plain',
            host: 'host_word_plain',
            setting: 'PROVIDER_URL_ALLOWLIST',
          }),
        ),
      }),
      AgentsModule,
      McpServersModule,
      RunsModule,
      WebhooksModule,
    ],
    deadLetters: { queues: ['agent-runs'] },
  });
}
