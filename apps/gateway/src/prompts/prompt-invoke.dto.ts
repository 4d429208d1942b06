import { OmitType } from '@nestjs/swagger';
import { PromptRunRequest } from '@waggle/contracts';
import { IsBoolean, IsOptional } from 'class-validator';

/**
 * `POST /v1/prompt/invoke` and `POST /v1/invoke`: the contract's run request without what
 * the gateway adds (workspace, request id, whether events are kept), plus `streaming` and
 * `background`. Unknown fields (image_urls, attachments…) are refused.
 */
export class PromptInvokeBody extends OmitType(PromptRunRequest, [
  'workspace_id',
  'request_id',
  'keep_events_ms',
  'surface',
  'conversation',
] as const) {
  /** true: a stream of server-sent events; false or absent: one JSON response. */
  @IsOptional()
  @IsBoolean()
  streaming?: boolean;

  /**
   * decisions D40: true, the run outlives its client. Streaming, the stream can be resumed
   * (`GET /v1/public/requests/{id}/events`); not streaming, 202 at once and the result is read
   * from the request ledger.
   */
  @IsOptional()
  @IsBoolean()
  background?: boolean;
}
