import type { KnowledgeBaseItemRunStatus, KnowledgeBaseItemType, KnowledgeBaseSearchType } from '@waggle/contracts';

/** A knowledge base as the service's other features read it (KnowledgeBaseEntity is its row). */
export interface KnowledgeBase {
  id: string;
  workspaceId: string;
  searchType: KnowledgeBaseSearchType;
  searchScoreThreshold: number;
  searchChunkLimit: number;
  /** A catalog model id of type `embedding`, fixed at creation. */
  embeddingModel: string;
  /** The vectors' length; null until the first item is indexed. */
  embeddingDimensions: number | null;
}

/** A knowledge base's item as the service's other features read it (KnowledgeBaseItemEntity is its row). */
export interface KnowledgeBaseItem {
  id: string;
  knowledgeBaseId: string;
  workspaceId: string;
  name: string;
  itemType: KnowledgeBaseItemType;
  sourceAssetId: string | null;
  sourceUrl: string | null;
  runStatus: KnowledgeBaseItemRunStatus;
}
