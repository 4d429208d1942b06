import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  DatasetFields,
  DatasetImportOptions,
  DatasetPatterns,
  DatasetRowsPage,
  DatasetVersionFields,
  send,
  type DatasetDetailView,
  type DatasetRowsPageView,
  type DatasetVersionView,
  type DatasetView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import {
  DatasetDeletedDto,
  DatasetDetailDto,
  DatasetDto,
  DatasetFieldsDoc,
  DatasetListDto,
  DatasetRowsPageDto,
  DatasetVersionDto,
  DatasetVersionFieldsDoc,
  IMPORT_QUERY,
  ROWS_QUERY,
} from './dataset.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VERSION_NUMBER = /^[1-9][0-9]{0,8}$/;
const DATASET_PARAM = { name: 'id', type: String, format: 'uuid', description: "The dataset's id" } as const;
const VERSION_PARAM = { name: 'version', type: Number, description: "The version's number" } as const;
const NOT_FOUND = {
  status: 404,
  description: "Dataset not found: unknown, or another workspace's (resource_not_found)",
  type: ErrorBodyDto,
} as const;
const BAD_REQUEST = { status: 400, description: 'A body that is not JSON (invalid_request)', type: ErrorBodyDto } as const;
const TOO_LARGE = {
  status: 413,
  description: 'A body over 10 MiB, or a row whose JSON is over 256 KiB (validation_error naming the row)',
  type: ErrorBodyDto,
} as const;
const ROW_LIMIT = {
  status: 422,
  description:
    'The version would have more than 10,000 rows (experiment_dataset_row_limit_exceeded; nothing is written), or an invalid body (validation_error): a row, a base_version the dataset does not have, update or remove ids not in it',
  type: ErrorBodyDto,
} as const;
/** Decodes an upload, refusing bytes that are not UTF-8 (a BOM is dropped). */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Any id that cannot name a dataset answers 404 without asking the invocation service. */
function checkedId(id: string): string {
  if (!UUID.test(id)) throw new WaggleException('resource_not_found', { detail: 'dataset_not_found' });
  return id;
}

function checkedVersion(version: string): number {
  if (!VERSION_NUMBER.test(version))
    throw new WaggleException('resource_not_found', { detail: 'dataset_version_not_found', params: { version: version.slice(0, 20) } });
  return Number(version);
}

/** The upload's text: the raw body (datasetBodies keeps it as bytes), which must be UTF-8. */
function uploadText(body: unknown): string {
  if (!Buffer.isBuffer(body)) return '';
  try {
    return UTF8.decode(body);
  } catch {
    throw new WaggleException('validation_error', { status: 400, detail: 'dataset_upload_not_utf8' });
  }
}

/**
 * A workspace's datasets (the spec's decisions on experiments and releases, "datasets" and
 * "paths"), owned by the invocation service; the workspace is the API key's. Bodies and uploads
 * here may be up to 10 MiB (datasetBodies), beyond the gateway's usual JSON limit.
 */
@ApiTags('datasets')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/datasets')
@PrivateApiRoute()
export class DatasetsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's datasets, by name. */
  @Get()
  @ApiOkResponse({ type: DatasetListDto })
  async list(@Req() request: AuthenticatedRequest): Promise<{ datasets: DatasetView[] }> {
    return { datasets: await send(this.rpc, DatasetPatterns.listDatasets, { workspace_id: request.auth.workspace_id }) };
  }

  /** A new, empty dataset (no version yet). */
  @Post()
  @HttpCode(201)
  @ApiBody({ type: DatasetFieldsDoc })
  @ApiResponse({ status: 201, type: DatasetDto })
  @ApiResponse(BAD_REQUEST)
  @ApiResponse({ status: 422, description: 'Invalid body, or a dataset of that name already there (validation_error)', type: ErrorBodyDto })
  create(@Body() body: DatasetFields, @Req() request: AuthenticatedRequest): Promise<DatasetView> {
    return send(this.rpc, DatasetPatterns.createDataset, { workspace_id: request.auth.workspace_id, dataset: body });
  }

  /** The dataset with its versions, newest first. */
  @Get(':id')
  @ApiParam(DATASET_PARAM)
  @ApiOkResponse({ type: DatasetDetailDto })
  @ApiResponse(NOT_FOUND)
  get(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<DatasetDetailView> {
    return send(this.rpc, DatasetPatterns.getDataset, { workspace_id: request.auth.workspace_id, dataset_id: checkedId(id) });
  }

  /** Deletes the dataset with every version and row. */
  @Delete(':id')
  @ApiParam(DATASET_PARAM)
  @ApiOkResponse({ type: DatasetDeletedDto })
  @ApiResponse(NOT_FOUND)
  async remove(@Param('id') id: string, @Req() request: AuthenticatedRequest): Promise<{ message: string }> {
    await send(this.rpc, DatasetPatterns.deleteDataset, { workspace_id: request.auth.workspace_id, dataset_id: checkedId(id) });
    return { message: 'Dataset deleted successfully' };
  }

  /** A new version: `{rows}`, or `{base_version, add?, update?, remove?}` (the base's rows keep their ids). */
  @Post(':id/versions')
  @HttpCode(201)
  @ApiParam(DATASET_PARAM)
  @ApiBody({ type: DatasetVersionFieldsDoc })
  @ApiResponse({ status: 201, type: DatasetVersionDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(BAD_REQUEST)
  @ApiResponse(TOO_LARGE)
  @ApiResponse(ROW_LIMIT)
  createVersion(
    @Param('id') id: string,
    @Body() body: DatasetVersionFields,
    @Req() request: AuthenticatedRequest,
  ): Promise<DatasetVersionView> {
    return send(this.rpc, DatasetPatterns.createVersion, {
      workspace_id: request.auth.workspace_id,
      dataset_id: checkedId(id),
      version: body,
    });
  }

  /** A new version from a CSV or JSONL upload (the raw body, whatever its Content-Type). */
  @Post(':id/versions/import')
  @HttpCode(201)
  @ApiParam(DATASET_PARAM)
  @ApiQuery(IMPORT_QUERY.format)
  @ApiQuery(IMPORT_QUERY.columns)
  @ApiQuery(IMPORT_QUERY.base_version)
  @ApiConsumes('text/csv', 'application/jsonl')
  @ApiBody({ schema: { type: 'string', description: 'CSV with a header row, or one JSON row object per line (blank lines skipped)' } })
  @ApiResponse({ status: 201, type: DatasetVersionDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse({
    status: 400,
    description: 'Not UTF-8, a CSV that cannot be read, a bad columns map, or a bad line or record (validation_error naming its line)',
    type: ErrorBodyDto,
  })
  @ApiResponse(TOO_LARGE)
  @ApiResponse(ROW_LIMIT)
  importVersion(
    @Param('id') id: string,
    @Query() query: DatasetImportOptions,
    @Req() request: AuthenticatedRequest,
  ): Promise<DatasetVersionView> {
    const datasetId = checkedId(id);
    return send(this.rpc, DatasetPatterns.importVersion, {
      workspace_id: request.auth.workspace_id,
      dataset_id: datasetId,
      options: query,
      content: uploadText(request.body),
    });
  }

  /** A page of a version's rows, in order. */
  @Get(':id/versions/:version/rows')
  @ApiParam(DATASET_PARAM)
  @ApiParam(VERSION_PARAM)
  @ApiQuery(ROWS_QUERY.limit)
  @ApiQuery(ROWS_QUERY.offset)
  @ApiOkResponse({ type: DatasetRowsPageDto })
  @ApiResponse({ ...NOT_FOUND, description: "Dataset or version not found: unknown, or another workspace's (resource_not_found)" })
  @ApiResponse({ status: 422, description: 'An invalid limit or offset (validation_error)', type: ErrorBodyDto })
  rows(
    @Param('id') id: string,
    @Param('version') version: string,
    @Query() page: DatasetRowsPage,
    @Req() request: AuthenticatedRequest,
  ): Promise<DatasetRowsPageView> {
    return send(this.rpc, DatasetPatterns.listRows, {
      workspace_id: request.auth.workspace_id,
      dataset_id: checkedId(id),
      version: checkedVersion(version),
      page,
    });
  }
}
