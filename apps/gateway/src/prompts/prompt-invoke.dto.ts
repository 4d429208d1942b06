import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsFlatMetadata, type FlatMetadata } from '@waggle/contracts';
import { IsBoolean, IsObject, IsOptional, IsString, Length } from 'class-validator';

/** `POST /v1/prompt/invoke` and `POST /v1/invoke`. Unknown fields (image_urls, attachments…) are refused. */
export class PromptInvokeBody {
  @ApiProperty({ description: 'Deployment name' })
  @IsString()
  @Length(1, 200)
  deployment!: string;

  @ApiProperty({ description: 'Variant name' })
  @IsString()
  @Length(1, 200)
  variant!: string;

  @ApiPropertyOptional({ description: 'Values of the prompt variables', type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'true: a stream of server-sent events; false or absent: one JSON response' })
  @IsOptional()
  @IsBoolean()
  streaming?: boolean;

  @ApiPropertyOptional({ description: 'Flat metadata kept for audit and filtering; never given to the model', type: 'object', additionalProperties: true })
  @IsOptional()
  @IsFlatMetadata()
  metadata?: FlatMetadata;
}
