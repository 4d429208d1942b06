import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A workflow deployment of a workspace: what `POST /v1/workflow/invoke` names in
 * `deployment`, and the owner of the webhook secret that signs its runs' callbacks.
 */
@Entity({ name: 'workflow_deployments' })
@Index('UQ_workflow_deployments_workspace_name', ['workspaceId', 'name'], { unique: true })
export class WorkflowDeploymentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  name!: string;

  /** `whsec_` + base64 of 32 random bytes, sealed (see SecretSealer): signs the `workflow.*` callbacks. */
  @Column({ name: 'webhook_secret_sealed', type: 'text' })
  webhookSecretSealed!: string;

  /** The secret a rotation replaced: it still signs until it expires, so receivers can switch without a lost delivery. */
  @Column({ name: 'previous_webhook_secret_sealed', type: 'text', nullable: true })
  previousWebhookSecretSealed!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
