import { OmitType } from '@nestjs/swagger';
import { AgentRunRequest } from '@waggle/contracts';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { CallbackSettings } from '../webhooks/prompt-webhook.dto';

/**
 * `POST /v1/agent/invoke`: the contract's run request without what the gateway adds
 * (workspace, request id, whether events are kept), plus `streaming`, `background` and, for a
 * background run without streaming, `async.callback_url`. Unknown fields are refused.
 */
export class AgentInvokeBody extends OmitType(AgentRunRequest, ['workspace_id', 'request_id', 'keep_events_ms', 'surface'] as const) {
  /** true: a stream of server-sent events; false or absent: one JSON response. */
  @IsOptional()
  @IsBoolean()
  streaming?: boolean;

  /** decisions D40: true, the run outlives its client (see PromptInvokeBody.background). */
  @IsOptional()
  @IsBoolean()
  background?: boolean;

  /** Where a background run's result goes (`agent.completed` / `agent.failed`), checked by the callback URL policy. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CallbackSettings)
  async?: CallbackSettings;
}
