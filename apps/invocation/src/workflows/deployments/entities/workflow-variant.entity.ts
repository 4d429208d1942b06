import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { McpPublish } from '@waggle/contracts';
import { TimestampColumns } from '@waggle/database';
import { WorkflowDeploymentEntity } from './workflow-deployment.entity';
import { WorkflowVersionEntity } from './workflow-version.entity';

/** A named variant of a workflow deployment, pointing at the immutable version new runs use. */
@Entity({ name: 'workflow_variants' })
@Index('UQ_workflow_variants_deployment_name', ['deploymentId', 'name'], { unique: true })
export class WorkflowVariantEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'deployment_id', type: 'uuid' })
  deploymentId!: string;

  @ManyToOne(() => WorkflowDeploymentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'deployment_id', foreignKeyConstraintName: 'FK_workflow_variants_deployment_id' })
  deployment!: WorkflowDeploymentEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'current_version_id', type: 'uuid', nullable: true })
  currentVersionId!: string | null;

  @ManyToOne(() => WorkflowVersionEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'current_version_id', foreignKeyConstraintName: 'FK_workflow_variants_current_version_id' })
  currentVersion!: WorkflowVersionEntity | null;

  /** Offered as a tool of the workspace's MCP server (the spec's decisions, MCP); null when not published. Not versioned. */
  @Column({ type: 'jsonb', nullable: true })
  publish!: McpPublish | null;
}
