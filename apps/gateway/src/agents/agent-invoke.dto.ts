import { OmitType } from '@nestjs/swagger';
import { AgentRunRequest } from '@waggle/contracts';
import { IsBoolean, IsOptional } from 'class-validator';

/**
 * `POST /v1/agent/invoke`: the contract's run request without what the gateway adds
 * (workspace, request id), plus `streaming`. Unknown fields are refused.
 */
export class AgentInvokeBody extends OmitType(AgentRunRequest, ['workspace_id', 'request_id'] as const) {
  /** true: a stream of server-sent events; false or absent: one JSON response. */
  @IsOptional()
  @IsBoolean()
  streaming?: boolean;
}
