import { IsFlatMetadata, type FlatMetadata } from '@waggle/contracts';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';

export class CallbackSettings {
  @IsString()
  @Length(1, 2048)
  callback_url!: string;
}

/** `POST /v1/prompt/webhooks/{prompt_endpoint_id}/variants/{variant_id}`. */
export class PromptWebhookBody {
  /** Every variable of the deployed version must be present (null and "" count); extra keys are allowed. */
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @IsOptional()
  @IsFlatMetadata()
  metadata?: FlatMetadata;

  @IsOptional()
  @IsString()
  @Length(0, 500)
  user?: string;

  /** Required: delivery is always by callback (checked in the handler, so its absence names `async.callback_url`). */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CallbackSettings)
  async?: CallbackSettings;
}
