import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A prompt deployment of a workspace; its id is the webhook route's prompt_endpoint_id. */
@Entity({ name: 'prompt_deployments' })
@Index('UQ_prompt_deployments_workspace_name', ['workspaceId', 'name'], { unique: true })
export class PromptDeploymentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  name!: string;

  /**
   * `whsec_` + base64 of 32 random bytes, sealed (see SecretSealer): authenticates
   * webhook triggers and signs callbacks.
   */
  @Column({ name: 'webhook_secret_sealed', type: 'text' })
  webhookSecretSealed!: string;

  /** The secret a rotation replaced: still accepted, and still signing, until it expires. */
  @Column({ name: 'previous_webhook_secret_sealed', type: 'text', nullable: true })
  previousWebhookSecretSealed!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
