import { Injectable, Logger } from '@nestjs/common';
import { CatalogPatterns, send, type WorkspaceSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import { LRUCache } from 'lru-cache';
import { API_KEY_CACHE_TTL_MS } from '../auth/api-key-authenticator';

/** How long a last answer still serves while the catalog cannot be reached. */
const STALE_WHILE_UNREACHABLE_MS = 10 * 60_000;

interface Checked {
  workspace: WorkspaceSummary | null;
  at: number;
}

/**
 * Whether a trigger's workspace still exists, and its account language, from the catalog:
 * a deleted workspace's webhooks stop within the same 4 s as its API keys. A brief catalog
 * outage does not stop triggers of workspaces seen in the last minutes.
 */
@Injectable()
export class ActiveWorkspaces {
  private readonly logger = new Logger(ActiveWorkspaces.name);
  /** Fresh for 4 s; serves up to STALE_WHILE_UNREACHABLE_MS while the catalog is away. */
  private readonly checked = new LRUCache<string, Checked>({ max: 10_000 });

  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace, or null when it does not exist or was deleted. */
  async get(workspaceId: string): Promise<WorkspaceSummary | null> {
    const now = Date.now();
    const last = this.checked.get(workspaceId);
    if (last && now - last.at < API_KEY_CACHE_TTL_MS) return last.workspace;
    try {
      const workspace = await send(this.rpc, CatalogPatterns.getWorkspace, { workspace_id: workspaceId });
      this.checked.set(workspaceId, { workspace, at: now });
      return workspace;
    } catch (error) {
      if (error instanceof WaggleException && error.code === 'not_found') {
        this.checked.set(workspaceId, { workspace: null, at: now });
        return null;
      }
      if (last && now - last.at < STALE_WHILE_UNREACHABLE_MS) {
        this.logger.warn({ err: error, workspace_id: workspaceId }, 'catalog unreachable; using the last known workspace state');
        return last.workspace;
      }
      throw error;
    }
  }
}
