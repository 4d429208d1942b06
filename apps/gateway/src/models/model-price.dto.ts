import { ApiProperty } from '@nestjs/swagger';
import type { ModelPricing } from '@waggle/contracts';

/** A model's price in USD per million tokens. */
export class ModelPricingDto implements ModelPricing {
  @ApiProperty({ description: 'Uncached prompt tokens, USD per million', minimum: 0, example: 3 })
  input!: number;

  @ApiProperty({ description: "Prompt tokens read from the provider's cache, USD per million", minimum: 0, example: 0.3 })
  cached_input!: number;

  @ApiProperty({ description: "Prompt tokens written to the provider's cache, USD per million", minimum: 0, example: 3.75 })
  cache_write!: number;

  @ApiProperty({
    description: 'Completion tokens (reasoning included unless `reasoning` is set), USD per million',
    minimum: 0,
    example: 15,
  })
  output!: number;

  @ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0,
    description: 'Reasoning tokens where the provider bills them apart from output, USD per million; null: billed as output',
  })
  reasoning!: number | null;

  @ApiProperty({ description: 'The version of this price, recorded with every run charged at it', example: '2026-11-21' })
  price_version!: string;
}

/** What a workspace reads of a model's price: the one its runs are charged. */
export class ModelPriceDto {
  @ApiProperty({ description: 'The catalog model id', example: 'claude-sonnet-5-5' })
  model!: string;

  @ApiProperty({ description: 'Display name' })
  name!: string;

  @ApiProperty({
    type: ModelPricingDto,
    nullable: true,
    description:
      "The price runs are charged (the operator's, which may differ from the provider's list price); null when the model has none",
  })
  pricing!: ModelPricing | null;
}

export class ModelPriceListDto {
  @ApiProperty({ type: [ModelPriceDto], description: 'The listed models (those of /v1/public/models), by provider then name' })
  model_prices!: ModelPriceDto[];
}
