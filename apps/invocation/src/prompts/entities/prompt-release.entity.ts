import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PromptVariantEntity } from './prompt-variant.entity';

/** One move of a prompt variant's pointer (the deployed version or a label), append-only. */
@Entity({ name: 'prompt_releases' })
@Index('IDX_prompt_releases_variant_at', ['variantId', 'at'])
export class PromptReleaseEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'variant_id', type: 'uuid' })
  variantId!: string;

  @ManyToOne(() => PromptVariantEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'variant_id', foreignKeyConstraintName: 'FK_prompt_releases_variant_id' })
  variant!: PromptVariantEntity;

  /** `deployed` or a label's name. */
  @Column({ type: 'text' })
  pointer!: string;

  /** Version numbers; null when the pointer had none (before) or was removed (after). */
  @Column({ name: 'from_version', type: 'integer', nullable: true })
  fromVersion!: number | null;

  @Column({ name: 'to_version', type: 'integer', nullable: true })
  toVersion!: number | null;

  /** `api_key:<id>` or `operator`. */
  @Column({ type: 'text' })
  actor!: string;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /** The experiment run that let the release gate pass. */
  @Column({ name: 'experiment_run_id', type: 'text', nullable: true })
  experimentRunId!: string | null;

  /** The release gate was overridden. */
  @Column({ type: 'boolean', default: false })
  override!: boolean;

  @CreateDateColumn({ name: 'at', type: 'timestamptz' })
  at!: Date;
}
