import { OmitType } from '@nestjs/swagger';
import { PromptRunRequest } from '@waggle/contracts';
import { IsBoolean, IsOptional } from 'class-validator';

/**
 * `POST /v1/prompt/invoke` and `POST /v1/invoke`: the contract's run request without what
 * the gateway adds (workspace, request id), plus `streaming`. Unknown fields (image_urls,
 * attachments…) are refused.
 */
export class PromptInvokeBody extends OmitType(PromptRunRequest, ['workspace_id', 'request_id'] as const) {
  /** true: a stream of server-sent events; false or absent: one JSON response. */
  @IsOptional()
  @IsBoolean()
  streaming?: boolean;
}
