import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** Every catalog file version ever loaded; the newest row is the one in force. */
@Entity({ name: 'catalog_versions' })
export class CatalogVersionEntity {
  @PrimaryColumn({ type: 'text' })
  version!: string;

  @Column({ name: 'model_count', type: 'integer' })
  modelCount!: number;

  @CreateDateColumn({ name: 'loaded_at', type: 'timestamptz' })
  loadedAt!: Date;
}
