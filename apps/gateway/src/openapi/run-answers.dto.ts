import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AcceptedRun, AgentInvokeResponse, PromptInvokeResponse } from '@waggle/contracts';
import { ErrorBodyDto } from '../errors/error-body.dto';

const REQUEST_ID_EXAMPLE = 'req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6';

/** A run accepted for later (a webhook trigger, a background invoke without streaming): 202. */
export class AcceptedRunDto implements AcceptedRun {
  @ApiProperty({ example: REQUEST_ID_EXAMPLE })
  request_id!: string;

  @ApiProperty({ enum: ['queued', 'running'] })
  run_status!: AcceptedRun['run_status'];
}

const USAGE = { type: 'object', additionalProperties: true, description: 'Token counts of the run' } as const;

/** A prompt run's JSON answer. */
export class PromptInvokeResponseDto implements PromptInvokeResponse {
  @ApiProperty({ example: REQUEST_ID_EXAMPLE })
  request_id!: string;

  @ApiProperty({ description: 'The model that answered' })
  model!: string;

  @ApiProperty({ description: 'Seconds the run took' })
  duration!: number;

  @ApiProperty()
  reasoning!: string;

  @ApiProperty()
  response!: string;

  @ApiProperty(USAGE)
  usage!: PromptInvokeResponse['usage'];

  @ApiProperty()
  stop_reason!: string;
}

/** An agent run's JSON answer. */
export class AgentInvokeResponseDto implements AgentInvokeResponse {
  @ApiProperty({ example: REQUEST_ID_EXAMPLE })
  request_id!: string;

  @ApiProperty()
  response!: string;

  @ApiPropertyOptional({ description: 'Present when the call named a thread' })
  thread_id?: string;

  @ApiProperty({ description: 'The model that answered' })
  model!: string;

  @ApiProperty(USAGE)
  usage!: AgentInvokeResponse['usage'];

  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'The tools the agent called' })
  tool_calls!: AgentInvokeResponse['tool_calls'];
}

/** A workflow run's answer: its output (sync), or the secret its callback will be signed with (async). */
export class WorkflowInvokeResponseDto {
  @ApiProperty({ example: REQUEST_ID_EXAMPLE })
  request_id!: string;

  @ApiProperty({ enum: ['completed', 'running', 'queued'] })
  run_status!: 'completed' | 'running' | 'queued';

  @ApiPropertyOptional({ description: 'Sync runs: the output' })
  output?: string;

  @ApiPropertyOptional({ description: 'Async runs: the secret the callback is signed with' })
  webhook_secret?: string;
}

/** 409 `idempotency_key_in_use` (and `run_cancelled`): the error names the run. */
export class RunConflictErrorBodyDto extends ErrorBodyDto {
  @ApiProperty({ example: REQUEST_ID_EXAMPLE, description: 'The run holding the key, or the run that was cancelled' })
  request_id!: string;
}
