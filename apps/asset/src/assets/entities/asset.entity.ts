import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** An uploaded file of a workspace: what it is, and where its bytes are in the asset storage. */
@Entity({ name: 'assets' })
@Index('IDX_assets_workspace_created', ['workspaceId', 'createdAt'])
export class AssetEntity {
  /** Chosen by the service before the bytes are stored (the storage key names it). */
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  /** The uploaded file's name. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'content_type', type: 'text' })
  contentType!: string;

  /** bigint: PostgreSQL returns it as a string. */
  @Column({ name: 'size_bytes', type: 'bigint' })
  sizeBytes!: string;

  /** Lowercase hex SHA-256 of the bytes. */
  @Column({ type: 'char', length: 64 })
  sha256!: string;

  /** The key of the bytes in the asset storage (filesystem or S3). */
  @Column({ name: 'storage_key', type: 'text' })
  storageKey!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
