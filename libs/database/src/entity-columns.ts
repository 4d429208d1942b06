import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/*
 * Column blocks several services' entities share, as abstract classes an entity extends
 * (TypeORM gives the extending entity's table the inherited columns; the properties stay flat
 * on the entity, so no query or caller changes). The schema they describe is the one the
 * landed migrations created: the schema-drift test proves every entity still matches it.
 */

/** When the row was created and last changed. */
export abstract class TimestampColumns {
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** A named resource of a workspace: its id, the workspace, its name, its times. */
export abstract class WorkspaceResourceColumns extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  name!: string;
}

/** A workspace resource that owns a webhook secret (prompt and workflow deployments, agents). */
export abstract class WebhookOwnerColumns extends WorkspaceResourceColumns {
  /**
   * `whsec_` + base64 of 32 random bytes, sealed (see SecretSealer): signs the owner's
   * callbacks, and authenticates its webhook triggers where it has any.
   */
  @Column({ name: 'webhook_secret_sealed', type: 'text' })
  webhookSecretSealed!: string;

  /** The secret a rotation replaced: still accepted, and still signing, until it expires. */
  @Column({ name: 'previous_webhook_secret_sealed', type: 'text', nullable: true })
  previousWebhookSecretSealed!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;
}
