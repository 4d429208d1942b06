import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A workspace's knowledge-base settings: the embedding model new knowledge bases are created with. */
@Entity({ name: 'workspace_settings' })
export class WorkspaceSettingEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  /** A catalog model id of type `embedding`; new knowledge bases of the workspace use it. */
  @Column({ name: 'embedding_model', type: 'text' })
  embeddingModel!: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
