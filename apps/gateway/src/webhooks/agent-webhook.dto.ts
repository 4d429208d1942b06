import { IsFlatMetadata, MAX_CONTENT_LENGTH, type FlatMetadata } from '@waggle/contracts';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { CallbackSettings } from './prompt-webhook.dto';

/** `POST /v1/agent/webhooks/{agent_id}`: the message, an optional thread, metadata and user label, and where the result goes. */
export class AgentWebhookBody {
  /** Required (checked in the handler with `async.callback_url`, so both are named at once). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CONTENT_LENGTH)
  message?: string;

  @IsOptional()
  @IsString()
  @Length(1, 256)
  thread_id?: string;

  @IsOptional()
  @IsFlatMetadata()
  metadata?: FlatMetadata;

  /** decisions: the run's user label, recorded and filterable, never given to the model. */
  @IsOptional()
  @IsString()
  @Length(0, 256)
  user?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CallbackSettings)
  async?: CallbackSettings;
}
