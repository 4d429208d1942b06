import type { WorkflowVariant } from '@waggle/workflows';
import { Column, Entity, Index } from 'typeorm';
import { VersionColumns } from '../../../deployments/version-columns';

/**
 * An immutable workflow definition: a variant points at one, a change makes a new one, and
 * a run keeps the version it was accepted with (so an apply never changes a run under way).
 */
@Entity({ name: 'workflow_versions' })
@Index('UQ_workflow_versions_variant_version', ['variantId', 'version'], { unique: true })
export class WorkflowVersionEntity extends VersionColumns {
  /** The parsed variant with its defaults applied: the engine runs exactly this. */
  @Column({ type: 'jsonb' })
  definition!: WorkflowVariant;

  /** SHA-256 of the canonical definition: applying the same definition twice changes nothing. */
  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;
}
