import { Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
  ApiOkResponse,
  ApiProduces,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  InvocationPatterns,
  LEDGER_REQUEST_TYPES,
  RUN_SURFACES,
  send,
  type CancelledRun,
  type RequestLookup,
  type RunSurface,
} from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { MeteredApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import type { Response } from 'express';
import { resumeAfter, RunEventReplay } from './run-event-replay';

export class RequestLookupDto implements RequestLookup {
  @ApiProperty({ example: 'req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6' })
  request_id!: string;

  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed', 'cancelled'] })
  status!: RequestLookup['status'];

  @ApiProperty({
    enum: LEDGER_REQUEST_TYPES,
    description: '`knowledge_search` only for a knowledge base search an MCP client called as a tool (`surface` `mcp`)',
  })
  request_type!: RequestLookup['request_type'];

  @ApiProperty({ example: 'prompt_deployment' })
  requestable_type!: string;

  @ApiProperty({ format: 'uuid' })
  requestable_id!: string;

  @ApiPropertyOptional({ type: 'string', description: 'The last user message as sent to the model' })
  message!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The caller metadata of the run' })
  metadata!: RequestLookup['metadata'];

  @ApiProperty({ format: 'date-time' })
  generated_at!: string;

  @ApiPropertyOptional({ type: 'string', format: 'date-time' })
  started_at!: string | null;

  @ApiPropertyOptional({ type: 'string', format: 'date-time' })
  ended_at!: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'The final response, output or error' })
  data!: Record<string, unknown> | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[0-9a-f]{32}$',
    example: '4bf92f3577b34da6a3ce929d0e0e4736',
    description:
      'The W3C trace id of the request that started the run (the trace id of its `traceparent` response header); null for runs recorded before it was kept',
  })
  trace_id!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: RUN_SURFACES,
    description:
      '`openai` when the run was started through the OpenAI-compatible API (`/openai/v1/*`), `mcp` by a tool call to the MCP server (`POST /v1/mcp`); null for the native routes',
  })
  surface!: RunSurface | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    example: 1575,
    description:
      "What the run's model calls cost, in micro-USD (1 = 0.000001 USD), at the models' prices when they ran; a stream cut short is charged for what it used. Null while the run is running, when it called no model, or for a run recorded before costs were kept",
  })
  cost_micros!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    description:
      "The version of the prompt or workflow variant that served the run (for a prompt: its label's, its pinned one, or the split target's); null for agent runs and for a queued run not yet started",
  })
  version!: number | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The label the prompt run named (`label` on the invoke or the trigger); null when none',
  })
  label!: string | null;
}

class CancelledRunDto implements CancelledRun {
  @ApiProperty({ example: 'req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6' })
  request_id!: string;

  @ApiProperty({
    enum: ['queued', 'running', 'completed', 'failed', 'cancelled'],
    description: 'The run status once the cancel took effect',
  })
  run_status!: CancelledRun['run_status'];
}

/** An error of a route that produces text/event-stream: errors are still JSON (a bare `type` would take the route's media type). */
const JSON_ERROR = { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodyDto) } } };

@ApiTags('requests')
@ApiBearerAuth()
@Controller('v1/public/requests')
@MeteredApiRoute()
export class RequestsController {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly replay: RunEventReplay,
  ) {}

  /** One run of this workspace, from the request ledger. */
  @Get(':id')
  @ApiOkResponse({ type: RequestLookupDto })
  @ApiResponse({ status: 404, description: 'No such request in this workspace', type: ErrorBodyDto })
  async lookup(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<RequestLookup> {
    // The price version is the operator's view (CLI, private list); the lookup answers the spec's fields and cost_micros.
    const { price_version: _priceVersion, ...lookup } = await send(this.rpc, InvocationPatterns.getRequest, {
      workspace_id: request.auth.workspace_id,
      request_id: id,
    });
    return lookup;
  }

  /**
   * decisions D40: a background stream's events after `Last-Event-ID` (or `?after=`), then the
   * run live to `[DONE]` (text/event-stream). Metered like the lookup; leaving never cancels the run.
   */
  @Get(':id/events')
  @ApiProduces('text/event-stream')
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: 'The id of the last event received: the replay starts after it',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  })
  @ApiQuery({
    name: 'after',
    required: false,
    type: 'integer',
    minimum: 0,
    description: 'As Last-Event-ID, for clients that cannot set headers',
  })
  @ApiOkResponse({
    description: 'The events after the resume point, then the run live to `data: [DONE]`; each event has an `id:` line',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiResponse({ status: 404, description: 'No such request in this workspace, or a run whose events are not kept', content: JSON_ERROR })
  @ApiResponse({ status: 422, description: 'Last-Event-ID or after is not a whole number', content: JSON_ERROR })
  async events(
    @Param('id') id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Query('after') after: string | undefined,
    @Req() request: AuthenticatedRequest,
    @Res() response: Response,
  ): Promise<void> {
    const afterSeq = resumeAfter(lastEventId, after);
    await this.replay.replay(id, request.auth.workspace_id, afterSeq, request, response);
  }

  /**
   * Cancels a run of this workspace (decisions.md, run cancellation): answered once the run has
   * stopped (or, for a run no replica holds, once it can no longer start), with its status then.
   */
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOkResponse({ type: CancelledRunDto })
  @ApiResponse({ status: 404, description: 'No such request in this workspace', type: ErrorBodyDto })
  cancel(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<CancelledRun> {
    return send(this.rpc, InvocationPatterns.cancelRequest, { workspace_id: request.auth.workspace_id, request_id: id });
  }
}
