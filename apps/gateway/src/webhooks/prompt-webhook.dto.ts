import { PromptRunInputs, WithVersionSelector } from '@waggle/contracts';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';

export class CallbackSettings {
  @IsString()
  @Length(1, 2048)
  callback_url!: string;
}

/**
 * `POST /v1/prompt/webhooks/{prompt_endpoint_id}/variants/{variant_id}`: the run's inputs
 * (every variable of the deployed version must be present; null and "" count, extra keys
 * are allowed), metadata and user label, where the result goes, and optionally the `label` or
 * `version` to run instead of the deployed version (pinned when the trigger is accepted).
 */
export class PromptWebhookBody extends WithVersionSelector(PromptRunInputs) {
  /** Required: delivery is always by callback (checked in the handler, so its absence names `async.callback_url`). */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CallbackSettings)
  async?: CallbackSettings;
}
