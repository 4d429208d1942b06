import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, type EntityManager, type Repository } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity';

/** Every query of API keys. */
@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** A new key row (inside the caller's transaction when given). */
  insert(
    values: Pick<ApiKeyEntity, 'workspaceId' | 'prefix' | 'keyHash'>,
    manager: EntityManager = this.keys.manager,
  ): Promise<ApiKeyEntity> {
    return manager.save(manager.create(ApiKeyEntity, values));
  }

  /** The workspace's keys, revoked ones included, oldest first. */
  listForWorkspace(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { workspaceId }, order: { createdAt: 'ASC' } });
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id });
  }

  findByPrefix(prefix: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ prefix });
  }

  /** The key with this prefix, with its workspace and the workspace's plan (what resolving a key needs), or null. */
  findWithWorkspace(prefix: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { prefix }, relations: { workspace: { plan: true } } });
  }

  save(key: ApiKeyEntity): Promise<ApiKeyEntity> {
    return this.keys.save(key);
  }

  /**
   * Sets last_used_at to `now` unless it was written less than `resolutionMs` ago: a key in
   * steady use costs one write per resolution window, not one per request.
   */
  async touchLastUsed(id: string, now: Date, resolutionMs: number): Promise<void> {
    const first = await this.keys.update({ id, lastUsedAt: IsNull() }, { lastUsedAt: now });
    if (first.affected) return;
    await this.keys.update({ id, lastUsedAt: LessThan(new Date(now.getTime() - resolutionMs)) }, { lastUsedAt: now });
  }
}
