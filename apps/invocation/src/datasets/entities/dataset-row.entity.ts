import type { FlatMetadata } from '@waggle/contracts';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DatasetVersionEntity } from './dataset-version.entity';

/**
 * One row of one dataset version, at its position. A version made from a base copies the base's
 * rows with their `row_id`, so a row keeps its id from version to version (what `update` and
 * `remove` name, and what experiment results compare across versions).
 */
@Entity({ name: 'dataset_rows' })
@Index('UQ_dataset_rows_version_row', ['datasetId', 'version', 'rowId'], { unique: true })
export class DatasetRowEntity {
  @PrimaryColumn({ name: 'dataset_id', type: 'uuid' })
  datasetId!: string;

  @PrimaryColumn({ type: 'integer' })
  version!: number;

  /** 0-based order in the version. */
  @PrimaryColumn({ type: 'integer' })
  position!: number;

  @ManyToOne(() => DatasetVersionEntity, { onDelete: 'CASCADE' })
  @JoinColumn([
    { name: 'dataset_id', referencedColumnName: 'datasetId' },
    { name: 'version', referencedColumnName: 'version' },
  ])
  datasetVersion?: DatasetVersionEntity;

  @Column({ name: 'row_id', type: 'uuid' })
  rowId!: string;

  @Column({ type: 'jsonb' })
  inputs!: Record<string, unknown>;

  /** Text or any JSON value; null when the row has none. */
  @Column({ name: 'expected_output', type: 'jsonb', nullable: true })
  expectedOutput!: unknown;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata!: FlatMetadata;
}
