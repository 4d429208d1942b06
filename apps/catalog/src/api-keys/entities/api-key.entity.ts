import { Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A workspace API key: only its SHA-256 hash and a short visible prefix are stored. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The workspace (by the table's name: workspaces are their own feature's). */
  @Index('IDX_api_keys_workspace_id')
  @ForeignKey('workspaces', 'id', { name: 'FK_api_keys_workspace_id', onDelete: 'CASCADE' })
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Index('UQ_api_keys_prefix', { unique: true })
  @Column({ type: 'text' })
  prefix!: string;

  /** SHA-256 of the whole key, hex. */
  @Column({ name: 'key_hash', type: 'text' })
  keyHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
