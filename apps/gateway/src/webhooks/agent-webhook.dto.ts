import { MAX_CONTENT_LENGTH, RunLabels } from '@waggle/contracts';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { CallbackSettings } from './prompt-webhook.dto';

/** `POST /v1/agent/webhooks/{agent_id}`: the message, an optional thread, the run's metadata and user label, and where the result goes. */
export class AgentWebhookBody extends RunLabels {
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
  @IsObject()
  @ValidateNested()
  @Type(() => CallbackSettings)
  async?: CallbackSettings;
}
