import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  EXPERIMENT_CELLS_PAGE_MAX,
  ExperimentCellsQuery,
  ExperimentPatterns,
  ExperimentRunDefinition,
  ExperimentRunsFilter,
  REQUEST_ID_FORMAT,
  send,
  type ExperimentCellsPage,
  type ExperimentRunView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { CELLS_QUERY, ExperimentCellsPageDto, ExperimentRunDefinitionDoc, ExperimentRunDto, ExperimentRunListDto } from './experiment.dto';
import { csvHeader, csvLine, evaluatorNames, EXPORT_FORMATS, jsonlLine, type ExportFormat } from './experiment-export';

const RUN_PARAM = {
  name: 'id',
  type: String,
  description: "The run's id (a request id)",
  example: 'req_0193e8a3b0a77000a000000000000001',
} as const;
const NOT_FOUND = {
  status: 404,
  description: "Experiment run not found: unknown, or another workspace's (resource_not_found)",
  type: ErrorBodyDto,
} as const;

/** Any id that cannot name a run answers 404 without asking the invocation service. */
function checkedRunId(id: string): string {
  if (!REQUEST_ID_FORMAT.test(id)) throw new WaggleException('resource_not_found', { detail: 'experiment_run_not_found' });
  return id;
}

/**
 * A workspace's experiment runs (the spec's decisions on experiments and releases: experiment
 * runs, results), owned by the invocation service. A run's id is a request id:
 * `POST /v1/public/requests/{id}/cancel` cancels it, and each cell's own request id its prompt run.
 */
@ApiTags('experiment runs')
@ApiExtraModels(ExperimentCellsPageDto)
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/experiment_runs')
@PrivateApiRoute()
export class ExperimentRunsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** Starts a run: its cells (rows × active candidates) are queued and run by the invocation replicas. */
  @Post()
  @HttpCode(201)
  @ApiBody({ type: ExperimentRunDefinitionDoc })
  @ApiResponse({ status: 201, type: ExperimentRunDto, description: 'The run, `queued`' })
  @ApiResponse({ status: 400, description: 'A body that is not JSON (validation_error)', type: ErrorBodyDto })
  @ApiResponse({
    status: 404,
    description: 'The dataset or its version is unknown in this workspace (resource_not_found)',
    type: ErrorBodyDto,
  })
  @ApiResponse({
    status: 422,
    description:
      'A workflow or agent candidate (experiment_candidate_type_unsupported); an active candidate that cannot run, each named in details (experiment_run_unsupported_candidates); more cells than the cap (experiment_run_result_limit_exceeded); an invalid body or evaluator (validation_error)',
    type: ErrorBodyDto,
  })
  @ApiResponse({
    status: 503,
    description: 'The run could not be queued; nothing is left (experiment_run_start_failed, Retry-After)',
    type: ErrorBodyDto,
  })
  create(@Body() body: ExperimentRunDefinition, @Req() request: AuthenticatedRequest): Promise<ExperimentRunView> {
    return send(this.rpc, ExperimentPatterns.createRun, { workspace_id: request.auth.workspace_id, run: body });
  }

  /** The workspace's runs, newest first (a running run's summary is in its own answer), a page at a time. */
  @Get()
  @ApiQuery({ name: 'limit', required: false, type: Number, description: 'At most this many (1 to 1000, default 100)' })
  @ApiQuery({
    name: 'before',
    required: false,
    type: String,
    description:
      'The next page: the runs created before this run (the last `id` of the page before), newest first; a run id of another workspace, or unknown, answers an empty page',
    example: 'req_0193e8a3b0a77000a000000000000001',
  })
  @ApiOkResponse({ type: ExperimentRunListDto })
  @ApiResponse({ status: 422, description: 'An invalid limit or before (validation_error)', type: ErrorBodyDto })
  async list(
    @Query() query: ExperimentRunsFilter,
    @Req() request: AuthenticatedRequest,
  ): Promise<{ experiment_runs: ExperimentRunView[] }> {
    return { experiment_runs: await send(this.rpc, ExperimentPatterns.listRuns, { workspace_id: request.auth.workspace_id, ...query }) };
  }

  /** The run: its status, counts and per-candidate summary. */
  @Get(':id')
  @ApiParam(RUN_PARAM)
  @ApiOkResponse({ type: ExperimentRunDto })
  @ApiResponse(NOT_FOUND)
  get(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<ExperimentRunView> {
    return send(this.rpc, ExperimentPatterns.getRun, { workspace_id: request.auth.workspace_id, run_id: checkedRunId(id) });
  }

  /** A page of the run's cells, or with `format` every cell as a CSV or JSONL file. */
  @Get(':id/cells')
  @ApiParam(RUN_PARAM)
  @ApiQuery(CELLS_QUERY.limit)
  @ApiQuery(CELLS_QUERY.offset)
  @ApiQuery(CELLS_QUERY.candidate)
  @ApiQuery(CELLS_QUERY.status)
  @ApiQuery(CELLS_QUERY.format)
  @ApiProduces('application/json', 'text/csv', 'application/x-ndjson')
  @ApiOkResponse({
    description: 'A page of cells; with format, a file (Content-Disposition: attachment)',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ExperimentCellsPageDto) } },
      'text/csv': { schema: { type: 'string' } },
      'application/x-ndjson': { schema: { type: 'string' } },
    },
  })
  @ApiResponse(NOT_FOUND)
  @ApiResponse({ status: 422, description: 'An invalid filter or format (validation_error)', type: ErrorBodyDto })
  async cells(
    @Param('id') id: string,
    @Query() query: ExperimentCellsQuery,
    @Req() request: AuthenticatedRequest,
    @Res() response: Response,
  ): Promise<void> {
    const runId = checkedRunId(id);
    const workspaceId = request.auth.workspace_id;
    const { format, ...filter } = query;
    if (format === undefined) {
      const page: ExperimentCellsPage = await send(this.rpc, ExperimentPatterns.listCells, {
        workspace_id: workspaceId,
        run_id: runId,
        ...filter,
      });
      response.status(200).json(page);
      return;
    }
    await this.export(workspaceId, runId, format, { candidate: filter.candidate, status: filter.status }, response);
  }

  /**
   * Every cell, read a page at a time and written as it comes. The run is read first, so an
   * unknown one answers 404 before anything is written; a failure after the first bytes ends the
   * response short (the client sees a cut download, not a file that looks whole).
   */
  private async export(
    workspaceId: string,
    runId: string,
    format: ExportFormat,
    filter: Pick<ExperimentCellsQuery, 'candidate' | 'status'>,
    response: Response,
  ): Promise<void> {
    const run = await send(this.rpc, ExperimentPatterns.getRun, { workspace_id: workspaceId, run_id: runId });
    const names = evaluatorNames(run.evaluators);
    let page = await send(this.rpc, ExperimentPatterns.listCells, {
      ...filter,
      workspace_id: workspaceId,
      run_id: runId,
      limit: EXPERIMENT_CELLS_PAGE_MAX,
      offset: 0,
    });
    const { contentType, extension } = EXPORT_FORMATS[format];
    response.status(200);
    response.setHeader('content-type', contentType);
    response.setHeader('content-disposition', `attachment; filename="experiment-run-${runId}-cells.${extension}"`);
    if (format === 'csv') response.write(csvHeader(names));
    try {
      for (;;) {
        response.write(page.cells.map((cell) => (format === 'csv' ? csvLine(cell, names) : jsonlLine(cell))).join(''));
        if (page.next_offset === null) break;
        page = await send(this.rpc, ExperimentPatterns.listCells, {
          ...filter,
          workspace_id: workspaceId,
          run_id: runId,
          limit: EXPERIMENT_CELLS_PAGE_MAX,
          offset: page.next_offset,
        });
      }
    } catch {
      response.destroy();
      return;
    }
    response.end();
  }
}
