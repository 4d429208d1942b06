import {
  KNOWLEDGE_BASE_ITEM_RUN_STATUSES,
  type KnowledgeBaseItemRecord,
  type KnowledgeBaseItemRunStatus,
  type KnowledgeBaseRecord,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { KnowledgeBaseItemEntity } from './entities/knowledge-base-item.entity';
import type { KnowledgeBaseEntity } from './entities/knowledge-base.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `id` can name a row at all: anything else is simply not found (and never reaches PostgreSQL's uuid parser). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/** decisions: an unknown, deleted or other-workspace knowledge base answers 422 `resource_not_found`. */
export function knowledgeBaseNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { status: 422, detail: 'knowledge_base_not_found' });
}

export function itemNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { status: 422, detail: 'knowledge_base_item_not_found' });
}

/** Active items of one knowledge base by run_status. */
export type ItemCounts = Record<KnowledgeBaseItemRunStatus, number>;

export function noItems(): ItemCounts {
  return Object.fromEntries(KNOWLEDGE_BASE_ITEM_RUN_STATUSES.map((status) => [status, 0])) as ItemCounts;
}

/** decisions: the knowledge base record, with ingestion progress and its embedding model. */
export function toKnowledgeBaseRecord(knowledgeBase: KnowledgeBaseEntity, counts: ItemCounts = noItems()): KnowledgeBaseRecord {
  return {
    id: knowledgeBase.id,
    name: knowledgeBase.name,
    description: knowledgeBase.description,
    search_type: knowledgeBase.searchType,
    search_score_threshold: knowledgeBase.searchScoreThreshold,
    search_chunk_limit: knowledgeBase.searchChunkLimit,
    status: 'active',
    items_count: Object.values(counts).reduce((sum, count) => sum + count, 0),
    items_by_status: counts,
    embedding_model: knowledgeBase.embeddingModel,
    embedding_dimensions: knowledgeBase.embeddingDimensions,
    created_at: knowledgeBase.createdAt.toISOString(),
    updated_at: knowledgeBase.updatedAt.toISOString(),
  };
}

export function toItemRecord(item: KnowledgeBaseItemEntity): KnowledgeBaseItemRecord {
  return {
    id: item.id,
    name: item.name,
    knowledge_base_id: item.knowledgeBaseId,
    item_type: item.itemType,
    run_status: item.runStatus,
    status: item.status,
    error: item.error,
    chunks_count: item.chunksCount,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
  };
}
