import { Column, CreateDateColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * What every immutable version of a deployment's variant holds (prompt and workflow
 * versions): a variant points at one, and a change makes the next.
 */
export abstract class VersionColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'variant_id', type: 'uuid' })
  variantId!: string;

  /** 1, 2, 3… within the variant. */
  @Column({ type: 'integer' })
  version!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
