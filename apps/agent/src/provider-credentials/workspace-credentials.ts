import { Injectable } from '@nestjs/common';
import { ProviderCredentialPatterns, send } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { WorkspaceCredential, WorkspaceCredentialCache, type WorkspaceCredentialLookup } from '@waggle/providers';

/**
 * The workspaces' own provider keys as this service's agent runs use them: asked of their owner,
 * the invocation service (`invocation.provider-credentials.resolve`, internal only), and cached
 * briefly and boundedly (WorkspaceCredentialCache): a key replaced or deleted there is used here
 * within WORKSPACE_CREDENTIAL_CACHE_MS.
 */
@Injectable()
export class WorkspaceCredentials {
  private readonly cache: WorkspaceCredentialCache;

  constructor(private readonly rpc: NatsRpcClient) {
    this.cache = new WorkspaceCredentialCache(async (workspaceId, provider) => {
      const { credential } = await send(this.rpc, ProviderCredentialPatterns.resolveProviderCredential, {
        workspace_id: workspaceId,
        provider,
      });
      return credential && new WorkspaceCredential(workspaceId, provider, credential.api_key, credential.base_url, credential.updated_at);
    });
  }

  readonly lookup: WorkspaceCredentialLookup = (workspaceId, provider) => this.cache.lookup(workspaceId, provider);
}
