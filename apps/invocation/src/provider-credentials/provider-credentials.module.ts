import { Module } from '@nestjs/common';
import { APP_ENV } from '@waggle/platform';
import { CallbackUrlPolicy, createGuardedDispatcher } from '@waggle/webhooks';
import type { InvocationEnv } from '../config/invocation.env';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { ProviderCredentialsController } from './provider-credentials.controller';
import { ProviderCredentialsRepository } from './provider-credentials.repository';
import { ProviderCredentialsService } from './provider-credentials.service';
import { PROVIDER_URL_POLICY } from './provider-credentials.tokens';
import { ProviderKeyTester } from './provider-key-tester';
import { WorkspaceCredentials } from './workspace-credentials';

/** The URL policy of the base URLs workspaces give with their keys. */
export function providerUrlPolicy(env: Pick<InvocationEnv, 'PROVIDER_URL_ALLOWLIST'>): CallbackUrlPolicy {
  return new CallbackUrlPolicy(env.PROVIDER_URL_ALLOWLIST, {
    url: 'url_word_plain',
    host: 'host_word_plain',
    setting: 'PROVIDER_URL_ALLOWLIST',
  });
}

/**
 * The workspaces' own provider keys (the spec's decisions on usage governance), owned by this
 * service: the store over NATS (list, save after a test call, delete, and resolve for the agent
 * service), sealed with the webhook secrets' keyring (WEBHOOK_SECRET_KEY), and WorkspaceCredentials
 * for this service's runs.
 */
@Module({
  imports: [WebhooksModule],
  controllers: [ProviderCredentialsController],
  providers: [
    ProviderCredentialsRepository,
    ProviderCredentialsService,
    WorkspaceCredentials,
    { provide: PROVIDER_URL_POLICY, useFactory: providerUrlPolicy, inject: [APP_ENV] },
    {
      provide: ProviderKeyTester,
      useFactory: (policy: CallbackUrlPolicy) => new ProviderKeyTester(createGuardedDispatcher(policy)),
      inject: [PROVIDER_URL_POLICY],
    },
  ],
  exports: [WorkspaceCredentials],
})
export class ProviderCredentialsModule {}
