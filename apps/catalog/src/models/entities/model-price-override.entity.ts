import type { ModelPricing } from '@waggle/contracts';
import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * An operator's price for a model, kept apart from the models table so loading a new catalog
 * file (which replaces every model row) never replaces it. Keyed by the catalog model id; an
 * override of a model a later catalog drops is kept and applies again if the model comes back.
 */
@Entity({ name: 'model_price_overrides' })
export class ModelPriceOverrideEntity {
  @PrimaryColumn({ name: 'model_id', type: 'text' })
  modelId!: string;

  /** USD per million tokens, in the catalog's pricing shape. */
  @Column({ type: 'jsonb' })
  pricing!: ModelPricing;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
