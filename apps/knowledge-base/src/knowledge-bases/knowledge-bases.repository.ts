import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { KnowledgeBaseItemRunStatus } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import { IsNull, type DataSource } from 'typeorm';
import { KnowledgeBaseItemEntity } from './entities/knowledge-base-item.entity';
import { KnowledgeBaseEntity } from './entities/knowledge-base.entity';
import { isUuid, knowledgeBaseNotFound, noItems, type ItemCounts } from './knowledge-base-record';

export type NewKnowledgeBase = Pick<
  KnowledgeBaseEntity,
  'workspaceId' | 'name' | 'description' | 'searchType' | 'searchScoreThreshold' | 'searchChunkLimit' | 'embeddingModel'
>;
export type NewItem = Pick<
  KnowledgeBaseItemEntity,
  'knowledgeBaseId' | 'workspaceId' | 'name' | 'itemType' | 'sourceAssetId' | 'sourceUrl'
>;

type ItemRow = RowOf<KnowledgeBaseItemEntity>;

const SQL = defineSql(__filename, {
  itemCounts: sql<Pick<ItemRow, 'knowledge_base_id' | 'run_status'> & { count: string }>(`
    SELECT "knowledge_base_id", "run_status", count(*) AS "count" FROM "knowledge_base"."knowledge_base_items"
    WHERE "knowledge_base_id" = ANY($1::uuid[]) AND "status" = 'active'
    GROUP BY "knowledge_base_id", "run_status"`),
  /** Only a row not deleted yet: deleting twice must not move deleted_at, nor answer as a delete. */
  markDeleted: sql(`
    UPDATE "knowledge_base"."knowledge_bases" SET "deleted_at" = now()
    WHERE "id" = $1 AND "workspace_id" = $2 AND "deleted_at" IS NULL`),
  deletedIds: sql<Pick<RowOf<KnowledgeBaseEntity>, 'id'>>(`
    SELECT "id" FROM "knowledge_base"."knowledge_bases" WHERE "deleted_at" IS NOT NULL ORDER BY "deleted_at"`),
  isMarkedDeleted: sql<{ marked: true }>(`
    SELECT true AS "marked" FROM "knowledge_base"."knowledge_bases" WHERE "id" = $1 AND "deleted_at" IS NOT NULL`),
  deleteItems: sql(`
    DELETE FROM "knowledge_base"."knowledge_base_items"
    WHERE "id" IN (SELECT "id" FROM "knowledge_base"."knowledge_base_items" WHERE "knowledge_base_id" = $1 LIMIT $2)`),
  deleteMarked: sql(`DELETE FROM "knowledge_base"."knowledge_bases" WHERE "id" = $1 AND "deleted_at" IS NOT NULL`),
  /** $1 item, $2 run status, $3 error, $4 attempts to add (0 or 1). */
  markItem: sql(`
    UPDATE "knowledge_base"."knowledge_base_items"
    SET "run_status" = $2, "error" = $3, "attempts" = "attempts" + $4, "updated_at" = now()
    WHERE "id" = $1`),
  reopenFailedItem: sql<Pick<ItemRow, 'error'>>(`
    UPDATE "knowledge_base"."knowledge_base_items" AS item SET "run_status" = 'queued', "error" = NULL, "updated_at" = now()
    FROM (SELECT "id", "error" FROM "knowledge_base"."knowledge_base_items" WHERE "id" = $1 AND "run_status" = 'failed' FOR UPDATE) AS before
    WHERE item."id" = before."id"
    RETURNING before."error"`),
  holdActive: sql<Pick<RowOf<KnowledgeBaseEntity>, 'id'>>(`
    SELECT "id" FROM "knowledge_base"."knowledge_bases" WHERE "id" = $1 AND "deleted_at" IS NULL FOR SHARE`),
  /** $1 item, $2 its chunk count. */
  completeItem: sql(`
    UPDATE "knowledge_base"."knowledge_base_items"
    SET "run_status" = 'completed', "error" = NULL, "chunks_count" = $2, "updated_at" = now()
    WHERE "id" = $1`),
  /**
   * A page of a knowledge base's items, newest first: $1 knowledge base, $2 the cursor's item
   * id (the rows after it in the order created_at, then id; an id not of the knowledge base
   * answers no rows), $3 the page size.
   */
  itemPage: sql<ItemRow>(`
    SELECT * FROM "knowledge_base"."knowledge_base_items"
    WHERE "knowledge_base_id" = $1
      AND ($2::uuid IS NULL OR ("created_at", "id") < (
        SELECT "created_at", "id" FROM "knowledge_base"."knowledge_base_items" WHERE "id" = $2::uuid AND "knowledge_base_id" = $1))
    ORDER BY "created_at" DESC, "id" DESC
    LIMIT $3`),
  recordDimensions: sql(`
    UPDATE "knowledge_base"."knowledge_bases" SET "embedding_dimensions" = $2 WHERE "id" = $1 AND "embedding_dimensions" IS NULL`),
});

/**
 * Every query of knowledge bases and their items. Only active knowledge bases (deleted_at
 * null) are ever found by the workspace-scoped reads; the cleanup worker alone reads the
 * deleted ones.
 */
@Injectable()
export class KnowledgeBasesRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /**
   * The workspace's active knowledge base, or null (also for an id that is no UUID, or another
   * workspace's). `lock` holds its row (FOR UPDATE) until the transaction it is read in ends.
   */
  findActive(workspaceId: string, knowledgeBaseId: string, options: { lock?: boolean } = {}): Promise<KnowledgeBaseEntity | null> {
    if (!isUuid(knowledgeBaseId)) return Promise.resolve(null);
    return this.table(KnowledgeBaseEntity).findOne({
      where: { id: knowledgeBaseId, workspaceId, deletedAt: IsNull() },
      ...(options.lock && { lock: { mode: 'pessimistic_write' as const } }),
    });
  }

  /** As findActive, but a missing one is 422 "Knowledge base not found". */
  async getActive(workspaceId: string, knowledgeBaseId: string, options: { lock?: boolean } = {}): Promise<KnowledgeBaseEntity> {
    const knowledgeBase = await this.findActive(workspaceId, knowledgeBaseId, options);
    if (!knowledgeBase) throw knowledgeBaseNotFound();
    return knowledgeBase;
  }

  /** An active knowledge base by id alone (for the ingestion worker, whose job names it). */
  findActiveById(knowledgeBaseId: string): Promise<KnowledgeBaseEntity | null> {
    return this.table(KnowledgeBaseEntity).findOneBy({ id: knowledgeBaseId, deletedAt: IsNull() });
  }

  listActive(workspaceId: string): Promise<KnowledgeBaseEntity[]> {
    return this.table(KnowledgeBaseEntity).find({ where: { workspaceId, deletedAt: IsNull() }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Active items of each knowledge base by run_status, in one query. */
  async itemCounts(knowledgeBaseIds: string[]): Promise<Map<string, ItemCounts>> {
    const counts = new Map<string, ItemCounts>(knowledgeBaseIds.map((id) => [id, noItems()]));
    if (knowledgeBaseIds.length === 0) return counts;
    for (const row of await this.rows(SQL.itemCounts, [knowledgeBaseIds])) {
      const of = counts.get(row.knowledge_base_id);
      if (of && row.run_status in of) of[row.run_status] = Number(row.count);
    }
    return counts;
  }

  insert(knowledgeBase: NewKnowledgeBase): Promise<KnowledgeBaseEntity> {
    const knowledgeBases = this.table(KnowledgeBaseEntity);
    return knowledgeBases.save(knowledgeBases.create({ ...knowledgeBase, embeddingDimensions: null, deletedAt: null }));
  }

  save(knowledgeBase: KnowledgeBaseEntity): Promise<KnowledgeBaseEntity> {
    return this.table(KnowledgeBaseEntity).save(knowledgeBase);
  }

  /** Marks the workspace's active knowledge base deleted; false when there was none. */
  async markDeleted(workspaceId: string, knowledgeBaseId: string): Promise<boolean> {
    if (!isUuid(knowledgeBaseId)) return false;
    return (await this.execute(SQL.markDeleted, [knowledgeBaseId, workspaceId])) > 0;
  }

  /** Knowledge bases marked deleted whose rows are still present (their cleanup not finished). */
  async deletedIds(): Promise<string[]> {
    return (await this.rows(SQL.deletedIds)).map((row) => row.id);
  }

  async isMarkedDeleted(knowledgeBaseId: string): Promise<boolean> {
    return (await this.row(SQL.isMarkedDeleted, [knowledgeBaseId])) !== null;
  }

  /** Deletes up to `limit` items of a knowledge base; answers how many. */
  deleteItems(knowledgeBaseId: string, limit: number): Promise<number> {
    return this.execute(SQL.deleteItems, [knowledgeBaseId, limit]);
  }

  /** Deletes the row of a knowledge base marked deleted (the last step of its cleanup). */
  async deleteMarked(knowledgeBaseId: string): Promise<void> {
    await this.execute(SQL.deleteMarked, [knowledgeBaseId]);
  }

  /** One page of the knowledge base's items, oldest first. */
  listItems(knowledgeBaseId: string, skip: number, take: number): Promise<KnowledgeBaseItemEntity[]> {
    return this.table(KnowledgeBaseItemEntity).find({ where: { knowledgeBaseId }, order: { createdAt: 'ASC', id: 'ASC' }, skip, take });
  }

  /** A page of the knowledge base's items, newest first, after `before`'s (none when it is not the knowledge base's). */
  async itemPage(knowledgeBaseId: string, before: string | null, limit: number): Promise<KnowledgeBaseItemEntity[]> {
    if (before !== null && !isUuid(before)) return [];
    const rows = await this.rows(SQL.itemPage, [knowledgeBaseId, before, limit]);
    return rows.map(itemOfRow);
  }

  findItem(knowledgeBaseId: string, itemId: string): Promise<KnowledgeBaseItemEntity | null> {
    if (!isUuid(itemId)) return Promise.resolve(null);
    return this.table(KnowledgeBaseItemEntity).findOneBy({ id: itemId, knowledgeBaseId });
  }

  insertItem(item: NewItem): Promise<KnowledgeBaseItemEntity> {
    const items = this.table(KnowledgeBaseItemEntity);
    return items.save(items.create({ ...item, runStatus: 'queued', status: 'active', error: null, chunksCount: 0, attempts: 0 }));
  }

  /** Moves an item's run_status (error cleared unless given); `attempt` counts a new ingestion attempt. */
  async markItem(itemId: string, change: { runStatus: KnowledgeBaseItemRunStatus; error?: string; attempt?: boolean }): Promise<void> {
    await this.execute(SQL.markItem, [itemId, change.runStatus, change.error ?? null, change.attempt ? 1 : 0]);
  }

  /**
   * A failed item back to `queued` (its error cleared) for a replay of its dead-lettered
   * ingestion; answers the error it had, or null when the item was not failed (nothing changed).
   */
  reopenFailedItem(itemId: string): Promise<{ error: string | null } | null> {
    return this.row(SQL.reopenFailedItem, [itemId]);
  }

  /**
   * Marks the item completed with its chunk count and records the knowledge base's vector
   * length if it had none, in the index's transaction (or one of its own). False (write
   * nothing) when the knowledge base has been deleted meanwhile; its row is held (FOR SHARE)
   * so a delete waits for this transaction, and the cleanup after it sees the chunks.
   */
  completeItem(knowledgeBaseId: string, itemId: string, result: { chunks: number; dimensions: number }): Promise<boolean> {
    return this.transaction(async () => {
      if (!(await this.row(SQL.holdActive, [knowledgeBaseId]))) return false;
      await this.execute(SQL.completeItem, [itemId, result.chunks]);
      await this.execute(SQL.recordDimensions, [knowledgeBaseId, result.dimensions]);
      return true;
    });
  }
}

function itemOfRow(row: ItemRow): KnowledgeBaseItemEntity {
  return Object.assign(new KnowledgeBaseItemEntity(), {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    workspaceId: row.workspace_id,
    name: row.name,
    itemType: row.item_type,
    sourceAssetId: row.source_asset_id,
    sourceUrl: row.source_url,
    runStatus: row.run_status,
    status: row.status,
    error: row.error,
    chunksCount: row.chunks_count,
    attempts: row.attempts,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}
