import { TimestampColumns } from '@waggle/database';
import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A workspace's named dataset: its versions and their rows hang off it and go with it. */
@Entity({ name: 'datasets' })
@Index('UQ_datasets_workspace_name', ['workspaceId', 'name'], { unique: true })
export class DatasetEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /**
   * The newest version's number, null before the first. A new version is numbered from it with
   * the dataset's row locked, so concurrent creators get consecutive numbers.
   */
  @Column({ name: 'latest_version', type: 'integer', nullable: true })
  latestVersion!: number | null;
}
