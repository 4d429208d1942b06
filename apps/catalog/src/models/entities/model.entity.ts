import type { ModelPricing } from '@waggle/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One model of the loaded catalog file; replaced wholesale when a new version loads. */
@Entity({ name: 'models' })
export class ModelEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Index('UQ_models_slug', { unique: true })
  @Column({ type: 'text' })
  slug!: string;

  /** Serving provider: whose API and credentials run it. */
  @Column({ type: 'text' })
  provider!: string;

  @Column({ name: 'provider_name', type: 'text' })
  providerName!: string;

  @Column({ name: 'provider_api', type: 'text' })
  providerApi!: string;

  /** Who made the model. */
  @Column({ type: 'text' })
  maker!: string;

  @Column({ name: 'maker_name', type: 'text' })
  makerName!: string;

  @Column({ name: 'provider_model_id', type: 'text' })
  providerModelId!: string;

  @Column({ name: 'model_type', type: 'text' })
  modelType!: 'llm' | 'image_generation' | 'embedding';

  @Column({ name: 'context_limit', type: 'integer' })
  contextLimit!: number;

  @Column({ name: 'is_vision', type: 'boolean' })
  isVision!: boolean;

  @Column({ name: 'is_reasoning', type: 'boolean' })
  isReasoning!: boolean;

  @Column({ name: 'is_tool_calling', type: 'boolean' })
  isToolCalling!: boolean;

  @Column({ name: 'is_json_schema', type: 'boolean' })
  isJsonSchema!: boolean;

  @Column({ type: 'text' })
  status!: 'active' | 'deprecated';

  /** The catalog file's price (USD per million tokens); null for rows loaded from a file older than prices. Overrides live apart (ModelPriceOverrideEntity). */
  @Column({ type: 'jsonb', nullable: true })
  pricing!: ModelPricing | null;

  @Column({ name: 'catalog_version', type: 'text' })
  catalogVersion!: string;
}
