import type { KnowledgeBaseSearchType } from '@waggle/contracts';
import { Column, Entity, Index } from 'typeorm';
import { WorkspaceResourceColumns } from '@waggle/database';
import type { KnowledgeBase } from '../knowledge-base';

/**
 * A knowledge base of a workspace: its search settings and the embedding model its chunks
 * are embedded with. Deleting one sets `deleted_at` (it is then never read again) and the
 * cleanup worker removes its chunks, items and finally the row itself.
 */
@Entity({ name: 'knowledge_bases' })
@Index('IDX_knowledge_bases_workspace_created', ['workspaceId', 'createdAt'])
export class KnowledgeBaseEntity extends WorkspaceResourceColumns implements KnowledgeBase {
  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ name: 'search_type', type: 'text' })
  searchType!: KnowledgeBaseSearchType;

  @Column({ name: 'search_score_threshold', type: 'double precision' })
  searchScoreThreshold!: number;

  @Column({ name: 'search_chunk_limit', type: 'integer' })
  searchChunkLimit!: number;

  /** A catalog model id of type `embedding`, fixed at creation. */
  @Column({ name: 'embedding_model', type: 'text' })
  embeddingModel!: string;

  /** The vectors' length; null until the first item is indexed. */
  @Column({ name: 'embedding_dimensions', type: 'integer', nullable: true })
  embeddingDimensions!: number | null;

  /** Set by a delete; such a row is only the cleanup worker's. Not a TypeORM DeleteDateColumn: cleanup reads these rows. */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
