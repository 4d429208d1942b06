import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { RateLimitEntity } from './entities/rate-limit.entity';

/** Rate limits of API keys and end users. */
@Injectable()
export class RateLimitsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's rate limits, oldest first. */
  list(workspaceId: string): Promise<RateLimitEntity[]> {
    return this.table(RateLimitEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  count(workspaceId: string): Promise<number> {
    return this.table(RateLimitEntity).countBy({ workspaceId });
  }

  find(workspaceId: string, id: string): Promise<RateLimitEntity | null> {
    return this.table(RateLimitEntity).findOneBy({ workspaceId, id });
  }

  findByScope(workspaceId: string, scope: RateLimitEntity['scope'], scopeId: string): Promise<RateLimitEntity | null> {
    return this.table(RateLimitEntity).findOneBy({ workspaceId, scope, scopeId });
  }

  save(limit: Partial<RateLimitEntity>): Promise<RateLimitEntity> {
    const limits = this.table(RateLimitEntity);
    return limits.save(limits.create(limit));
  }

  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.table(RateLimitEntity).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }
}
