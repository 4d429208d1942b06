import { Injectable, Logger } from '@nestjs/common';
import type { ApiKeySummary, CreatedApiKey, ResolvedApiKey } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { isUUID } from 'class-validator';
import { effectiveLimits } from '../workspaces/workspace';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { apiKeyPrefix, generateApiKey, hashApiKey, sameHash } from './api-key-secret';
import type { ApiKeyEntity } from './entities/api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';

/** last_used_at is written at most this often per key: it is for operators, not billing. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function toApiKeySummary(key: ApiKeyEntity): ApiKeySummary {
  return {
    id: key.id,
    prefix: key.prefix,
    workspace_id: key.workspaceId,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly workspaces: WorkspacesService,
  ) {}

  /** A new key of a workspace that is not deleted (inside the caller's transaction, if one is open). */
  async create(workspaceId: string): Promise<CreatedApiKey> {
    await this.workspaces.get(workspaceId);
    const apiKey = generateApiKey();
    const saved = await this.keys.insert({ workspaceId, prefix: apiKeyPrefix(apiKey), keyHash: hashApiKey(apiKey) });
    return { ...toApiKeySummary(saved), api_key: apiKey };
  }

  async list(workspaceId: string): Promise<ApiKeySummary[]> {
    const keys = await this.keys.listForWorkspace(workspaceId);
    return keys.map(toApiKeySummary);
  }

  async revoke(idOrPrefix: string): Promise<ApiKeySummary> {
    const key = await (isUUID(idOrPrefix) ? this.keys.findById(idOrPrefix) : this.keys.findByPrefix(idOrPrefix));
    if (!key) throw new WaggleException('not_found', { detail: 'api_key_not_found' });
    key.revokedAt ??= new Date();
    return toApiKeySummary(await this.keys.save(key));
  }

  /**
   * The gateway's question "whose key is this?". The lookup is by the visible prefix;
   * the hashes are then compared in constant time. Unknown, revoked and deleted-workspace
   * keys are indistinguishable to the caller.
   */
  async resolve(prefix: string, keyHash: string): Promise<ResolvedApiKey> {
    const key = await this.keys.findResolvable(prefix);
    const valid = key !== null && sameHash(key.keyHash, keyHash) && key.revokedAt === null && key.workspace.deletedAt === null;
    if (!valid) throw new WaggleException('invalid_api_key');
    this.touch(key.id);
    return {
      key_id: key.id,
      workspace_id: key.workspaceId,
      language: key.workspace.language,
      limits: effectiveLimits(key.workspace),
      hosted_credits: key.workspace.planHostedCredits,
    };
  }

  private touch(id: string): void {
    this.keys
      .touchLastUsed(id, new Date(), LAST_USED_RESOLUTION_MS)
      .catch((error: unknown) => this.logger.warn({ err: error, key_id: id }, 'could not record last use of an API key'));
  }
}
