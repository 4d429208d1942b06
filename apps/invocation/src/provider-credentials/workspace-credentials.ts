import { Injectable } from '@nestjs/common';
import { WorkspaceCredential, WorkspaceCredentialCache, type WorkspaceCredentialLookup } from '@waggle/providers';
import { SecretSealer } from '@waggle/webhooks';
import type { ProviderCredentialEntity } from './entities/provider-credential.entity';
import { ProviderCredentialsRepository } from './provider-credentials.repository';

/**
 * The workspaces' stored keys as this service's runs (prompt runs, workflow steps) and the agent
 * service's resolve calls read them: opened from the table, cached briefly and boundedly
 * (WorkspaceCredentialCache); the replica that saves or deletes one forgets it at once.
 */
@Injectable()
export class WorkspaceCredentials {
  private readonly cache: WorkspaceCredentialCache;

  constructor(
    private readonly credentials: ProviderCredentialsRepository,
    private readonly sealer: SecretSealer,
  ) {
    this.cache = new WorkspaceCredentialCache((workspaceId, provider) => this.load(workspaceId, provider));
  }

  readonly lookup: WorkspaceCredentialLookup = (workspaceId, provider) => this.cache.lookup(workspaceId, provider);

  forget(workspaceId: string, provider: string): void {
    this.cache.forget(workspaceId, provider);
  }

  /** The stored credential, its key opened. */
  opened(stored: ProviderCredentialEntity): WorkspaceCredential {
    return new WorkspaceCredential(
      stored.workspaceId,
      stored.provider,
      this.sealer.open(stored.apiKeySealed),
      stored.baseUrl,
      stored.updatedAt.toISOString(),
    );
  }

  private async load(workspaceId: string, provider: string): Promise<WorkspaceCredential | null> {
    const stored = await this.credentials.find(workspaceId, provider);
    return stored && this.opened(stored);
  }
}
