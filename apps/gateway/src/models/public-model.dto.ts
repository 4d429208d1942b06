import { ApiProperty } from '@nestjs/swagger';
import type { PublicModel } from '@waggle/contracts';

/** One model of the catalog listing (the spec's twelve fields). */
export class PublicModelDto implements PublicModel {
  @ApiProperty({ description: 'Identifier used when configuring prompts, workflows or agents', example: 'gpt-6.1-sol' })
  id!: string;

  @ApiProperty({ description: 'Display name' })
  name!: string;

  @ApiProperty({ description: 'URL-friendly slug derived from the name' })
  slug!: string;

  @ApiProperty({ description: 'Provider key: the serving provider on /v1/public/models, the model maker on /v1/models' })
  provider!: string;

  @ApiProperty({ description: 'Provider display name' })
  provider_name!: string;

  @ApiProperty({ description: 'Maximum context window in tokens; 0 when unknown', type: 'integer', minimum: 0 })
  context_limit!: number;

  @ApiProperty({ enum: ['llm', 'image_generation'] })
  model_type!: 'llm' | 'image_generation';

  @ApiProperty({ description: 'True when the model generates images' })
  is_image_generation!: boolean;

  @ApiProperty({ description: 'Accepts image input; independent of image generation' })
  is_vision!: boolean;

  @ApiProperty({ description: 'Supports reasoning' })
  is_reasoning!: boolean;

  @ApiProperty({ description: 'Supports tool/function calling' })
  is_tool_calling!: boolean;

  @ApiProperty({ description: 'Supports structured JSON-schema output' })
  is_json_schema!: boolean;
}
