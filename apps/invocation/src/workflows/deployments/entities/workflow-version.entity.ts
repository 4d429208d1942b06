import type { WorkflowVariant } from '@waggle/workflows';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An immutable workflow definition: a variant points at one, a change makes a new one, and
 * a run keeps the version it was accepted with (so an apply never changes a run under way).
 */
@Entity({ name: 'workflow_versions' })
@Index('UQ_workflow_versions_variant_version', ['variantId', 'version'], { unique: true })
export class WorkflowVersionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'variant_id', type: 'uuid' })
  variantId!: string;

  /** 1, 2, 3… within the variant. */
  @Column({ type: 'integer' })
  version!: number;

  /** The parsed variant with its defaults applied: the engine runs exactly this. */
  @Column({ type: 'jsonb' })
  definition!: WorkflowVariant;

  /** SHA-256 of the canonical definition: applying the same definition twice changes nothing. */
  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
