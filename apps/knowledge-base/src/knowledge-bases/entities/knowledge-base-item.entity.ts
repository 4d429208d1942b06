import type { KnowledgeBaseItemRunStatus, KnowledgeBaseItemStatus, KnowledgeBaseItemType } from '@waggle/contracts';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumns } from '@waggle/database';
import type { KnowledgeBaseItem } from '../knowledge-base';

/** A document of a knowledge base, from an asset or an `https://` URL, and its ingestion's progress. */
@Entity({ name: 'knowledge_base_items' })
@Index('IDX_knowledge_base_items_kb_created', ['knowledgeBaseId', 'createdAt'])
export class KnowledgeBaseItemEntity extends TimestampColumns implements KnowledgeBaseItem {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'knowledge_base_id', type: 'uuid' })
  knowledgeBaseId!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'item_type', type: 'text' })
  itemType!: KnowledgeBaseItemType;

  @Column({ name: 'source_asset_id', type: 'uuid', nullable: true })
  sourceAssetId!: string | null;

  @Column({ name: 'source_url', type: 'text', nullable: true })
  sourceUrl!: string | null;

  @Column({ name: 'run_status', type: 'text' })
  runStatus!: KnowledgeBaseItemRunStatus;

  @Column({ type: 'text' })
  status!: KnowledgeBaseItemStatus;

  /** Why ingestion failed; null unless run_status is failed. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'chunks_count', type: 'integer', default: 0 })
  chunksCount!: number;

  /** Ingestion attempts started so far. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;
}
