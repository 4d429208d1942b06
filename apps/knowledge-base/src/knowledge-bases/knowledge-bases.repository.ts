import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { KnowledgeBaseItemRunStatus } from '@waggle/contracts';
import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import { KnowledgeBaseItemEntity } from './entities/knowledge-base-item.entity';
import { KnowledgeBaseEntity } from './entities/knowledge-base.entity';
import { WorkspaceSettingEntity } from './entities/workspace-setting.entity';
import { isUuid, knowledgeBaseNotFound, noItems, type ItemCounts } from './knowledge-base-record';

export type NewKnowledgeBase = Pick<
  KnowledgeBaseEntity,
  'workspaceId' | 'name' | 'description' | 'searchType' | 'searchScoreThreshold' | 'searchChunkLimit' | 'embeddingModel'
>;
export type NewItem = Pick<
  KnowledgeBaseItemEntity,
  'knowledgeBaseId' | 'workspaceId' | 'name' | 'itemType' | 'sourceAssetId' | 'sourceUrl'
>;

/**
 * Every query of knowledge bases and their items. Only active knowledge bases (deleted_at
 * null) are ever found by the workspace-scoped reads; the cleanup worker alone reads the
 * deleted ones.
 */
@Injectable()
export class KnowledgeBasesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** The workspace's active knowledge base, or null (also for an id that is no UUID, or another workspace's). */
  findActive(
    workspaceId: string,
    knowledgeBaseId: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<KnowledgeBaseEntity | null> {
    if (!isUuid(knowledgeBaseId)) return Promise.resolve(null);
    return manager.findOne(KnowledgeBaseEntity, {
      where: { id: knowledgeBaseId, workspaceId, deletedAt: IsNull() },
      ...(lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findActive, but a missing one is 422 "Knowledge base not found". */
  async getActive(workspaceId: string, knowledgeBaseId: string, manager?: EntityManager, lock = false): Promise<KnowledgeBaseEntity> {
    const knowledgeBase = await this.findActive(workspaceId, knowledgeBaseId, manager, lock);
    if (!knowledgeBase) throw knowledgeBaseNotFound();
    return knowledgeBase;
  }

  /** An active knowledge base by id alone (for the ingestion worker, whose job names it). */
  findActiveById(knowledgeBaseId: string): Promise<KnowledgeBaseEntity | null> {
    return this.dataSource.getRepository(KnowledgeBaseEntity).findOneBy({ id: knowledgeBaseId, deletedAt: IsNull() });
  }

  listActive(workspaceId: string): Promise<KnowledgeBaseEntity[]> {
    return this.dataSource
      .getRepository(KnowledgeBaseEntity)
      .find({ where: { workspaceId, deletedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Active items of each knowledge base by run_status, in one query. */
  async itemCounts(knowledgeBaseIds: string[]): Promise<Map<string, ItemCounts>> {
    const counts = new Map<string, ItemCounts>(knowledgeBaseIds.map((id) => [id, noItems()]));
    if (knowledgeBaseIds.length === 0) return counts;
    const rows: Array<{ knowledge_base_id: string; run_status: keyof ItemCounts; count: string }> = await this.dataSource.query(
      `SELECT knowledge_base_id, run_status, count(*) AS count FROM knowledge_base.knowledge_base_items
        WHERE knowledge_base_id = ANY($1::uuid[]) AND status = 'active' GROUP BY knowledge_base_id, run_status`,
      [knowledgeBaseIds],
    );
    for (const row of rows) {
      const of = counts.get(row.knowledge_base_id);
      if (of && row.run_status in of) of[row.run_status] = Number(row.count);
    }
    return counts;
  }

  async insert(knowledgeBase: NewKnowledgeBase): Promise<KnowledgeBaseEntity> {
    const repository = this.dataSource.getRepository(KnowledgeBaseEntity);
    return repository.save(repository.create({ ...knowledgeBase, embeddingDimensions: null, deletedAt: null }));
  }

  save(manager: EntityManager, knowledgeBase: KnowledgeBaseEntity): Promise<KnowledgeBaseEntity> {
    return manager.save(KnowledgeBaseEntity, knowledgeBase);
  }

  /** Marks the workspace's active knowledge base deleted; false when there was none. */
  async markDeleted(workspaceId: string, knowledgeBaseId: string): Promise<boolean> {
    if (!isUuid(knowledgeBaseId)) return false;
    // Only a row not deleted yet: deleting twice must not move deleted_at, nor answer as a delete.
    const result = await this.dataSource
      .createQueryBuilder()
      .update(KnowledgeBaseEntity)
      .set({ deletedAt: () => 'now()', updatedAt: () => '"updated_at"' })
      .where('id = :knowledgeBaseId AND workspace_id = :workspaceId AND deleted_at IS NULL', { knowledgeBaseId, workspaceId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Knowledge bases marked deleted whose rows are still present (their cleanup not finished). */
  async deletedIds(): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM knowledge_base.knowledge_bases WHERE deleted_at IS NOT NULL ORDER BY deleted_at`,
    );
    return rows.map((row) => row.id);
  }

  async isMarkedDeleted(knowledgeBaseId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM knowledge_base.knowledge_bases WHERE id = $1 AND deleted_at IS NOT NULL`,
      [knowledgeBaseId],
    );
    return rows.length > 0;
  }

  /** Deletes up to `limit` items of a knowledge base; answers how many. */
  async deleteItems(knowledgeBaseId: string, limit: number): Promise<number> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(KnowledgeBaseItemEntity)
      .where(`id IN (SELECT id FROM knowledge_base.knowledge_base_items WHERE knowledge_base_id = :knowledgeBaseId LIMIT :limit)`, {
        knowledgeBaseId,
        limit,
      })
      .execute();
    return result.affected ?? 0;
  }

  /** Deletes the row of a knowledge base marked deleted (the last step of its cleanup). */
  async deleteMarked(knowledgeBaseId: string): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(KnowledgeBaseEntity)
      .where('id = :knowledgeBaseId AND deleted_at IS NOT NULL', { knowledgeBaseId })
      .execute();
  }

  /** One page of the knowledge base's items, oldest first. */
  listItems(knowledgeBaseId: string, skip: number, take: number): Promise<KnowledgeBaseItemEntity[]> {
    return this.dataSource
      .getRepository(KnowledgeBaseItemEntity)
      .find({ where: { knowledgeBaseId }, order: { createdAt: 'ASC', id: 'ASC' }, skip, take });
  }

  findItem(knowledgeBaseId: string, itemId: string): Promise<KnowledgeBaseItemEntity | null> {
    if (!isUuid(itemId)) return Promise.resolve(null);
    return this.dataSource.getRepository(KnowledgeBaseItemEntity).findOneBy({ id: itemId, knowledgeBaseId });
  }

  insertItem(item: NewItem): Promise<KnowledgeBaseItemEntity> {
    const repository = this.dataSource.getRepository(KnowledgeBaseItemEntity);
    return repository.save(repository.create({ ...item, runStatus: 'queued', status: 'active', error: null, chunksCount: 0, attempts: 0 }));
  }

  /** Moves an item's run_status (error cleared unless given); `attempt` counts a new ingestion attempt. */
  async markItem(itemId: string, change: { runStatus: KnowledgeBaseItemRunStatus; error?: string; attempt?: boolean }): Promise<void> {
    await this.dataSource.query(
      `UPDATE knowledge_base.knowledge_base_items SET run_status = $2, error = $3, attempts = attempts + $4, updated_at = now() WHERE id = $1`,
      [itemId, change.runStatus, change.error ?? null, change.attempt ? 1 : 0],
    );
  }

  /**
   * A failed item back to `queued` (its error cleared) for a replay of its dead-lettered
   * ingestion; answers the error it had, or null when the item was not failed (nothing changed).
   */
  async reopenFailedItem(itemId: string): Promise<{ error: string | null } | null> {
    const [rows]: [Array<{ error: string | null }>, number] = await this.dataSource.query(
      `UPDATE knowledge_base.knowledge_base_items AS item SET run_status = 'queued', error = NULL, updated_at = now()
         FROM (SELECT id, error FROM knowledge_base.knowledge_base_items WHERE id = $1 AND run_status = 'failed' FOR UPDATE) AS before
        WHERE item.id = before.id
       RETURNING before.error`,
      [itemId],
    );
    return rows[0] ?? null;
  }

  /**
   * Inside the index's transaction: marks the item completed with its chunk count and records
   * the knowledge base's vector length if it had none. False (write nothing) when the
   * knowledge base has been deleted meanwhile; its row is held (FOR SHARE) so a delete waits
   * for this transaction, and the cleanup after it sees the chunks.
   */
  async completeItem(
    manager: EntityManager,
    knowledgeBaseId: string,
    itemId: string,
    result: { chunks: number; dimensions: number },
  ): Promise<boolean> {
    const active: unknown[] = await manager.query(
      `SELECT id FROM knowledge_base.knowledge_bases WHERE id = $1 AND deleted_at IS NULL FOR SHARE`,
      [knowledgeBaseId],
    );
    if (active.length === 0) return false;
    await manager.query(
      `UPDATE knowledge_base.knowledge_base_items SET run_status = 'completed', error = NULL, chunks_count = $2, updated_at = now() WHERE id = $1`,
      [itemId, result.chunks],
    );
    await manager.query(
      `UPDATE knowledge_base.knowledge_bases SET embedding_dimensions = $2 WHERE id = $1 AND embedding_dimensions IS NULL`,
      [knowledgeBaseId, result.dimensions],
    );
    return true;
  }

  workspaceEmbeddingModel(workspaceId: string): Promise<WorkspaceSettingEntity | null> {
    return this.dataSource.getRepository(WorkspaceSettingEntity).findOneBy({ workspaceId });
  }

  async setWorkspaceEmbeddingModel(workspaceId: string, embeddingModel: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO knowledge_base.workspace_settings (workspace_id, embedding_model, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (workspace_id) DO UPDATE SET embedding_model = EXCLUDED.embedding_model, updated_at = now()`,
      [workspaceId, embeddingModel],
    );
  }
}
