import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { McpPublish, ReleaseProtection, StoredSplit } from '@waggle/contracts';
import { TimestampColumns } from '@waggle/database';
import { PromptDeploymentEntity } from './prompt-deployment.entity';
import { PromptVersionEntity } from './prompt-version.entity';

/** A named variant of a deployment, pointing at its current immutable version. */
@Entity({ name: 'prompt_variants' })
@Index('UQ_prompt_variants_deployment_name', ['deploymentId', 'name'], { unique: true })
export class PromptVariantEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'deployment_id', type: 'uuid' })
  deploymentId!: string;

  @ManyToOne(() => PromptDeploymentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'deployment_id', foreignKeyConstraintName: 'FK_prompt_variants_deployment_id' })
  deployment!: PromptDeploymentEntity;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'current_version_id', type: 'uuid', nullable: true })
  currentVersionId!: string | null;

  @ManyToOne(() => PromptVersionEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'current_version_id', foreignKeyConstraintName: 'FK_prompt_variants_current_version_id' })
  currentVersion!: PromptVersionEntity | null;

  /** Offered as a tool of the workspace's MCP server (the spec's decisions, MCP); null when not published. Not versioned. */
  @Column({ type: 'jsonb', nullable: true })
  publish!: McpPublish | null;

  /**
   * Named pointers besides the deployed one (`current_version_id`): label → version number.
   * On the variant's row so a run's resolution reads them with it, and a move locks that row.
   */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  labels!: Record<string, number>;

  /** Whether promoting to the deployed version needs a passing experiment run; null: never set (not protected). */
  @Column({ type: 'jsonb', nullable: true })
  protection!: ReleaseProtection | null;

  /** A weighted split served instead of the deployed version (not versioned, like `publish`); null: none. */
  @Column({ type: 'jsonb', nullable: true })
  split!: StoredSplit | null;
}
