import { Check, Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DatasetEntity } from './dataset.entity';

/** One numbered, immutable version of a dataset: written once with all its rows, never changed. */
@Entity({ name: 'dataset_versions' })
@Check('CHK_dataset_versions_version_positive', '"version" > 0')
export class DatasetVersionEntity {
  @PrimaryColumn({ name: 'dataset_id', type: 'uuid' })
  datasetId!: string;

  @ManyToOne(() => DatasetEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'dataset_id', foreignKeyConstraintName: 'FK_dataset_versions_dataset_id' })
  dataset?: DatasetEntity;

  @PrimaryColumn({ type: 'integer' })
  version!: number;

  /** The version it was made from, null when made from full rows or an import without a base. */
  @Column({ name: 'base_version', type: 'integer', nullable: true })
  baseVersion!: number | null;

  @Column({ name: 'row_count', type: 'integer' })
  rowCount!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
