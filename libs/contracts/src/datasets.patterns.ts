import 'reflect-metadata';
import { errorMessage, type ErrorDetail } from '@waggle/errors';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { numberFromText, WorkspaceIdRequest } from './common.dto';
import {
  DATASET_NAME_PATTERN,
  DATASET_ROW_LIMIT,
  DATASET_UPLOAD_MAX_BYTES,
  type DatasetRowInput,
  type DatasetRowView,
  type DatasetVersionView,
  type DatasetView,
} from './experiments';
import { flatMetadataProblem } from './flat-metadata';
import { patternNames, PRIVATE_RPC_TIMEOUT_MS, rpc } from './rpc-contract';

/**
 * Datasets (the spec's decisions on experiments and releases, "datasets" and "paths"): the wire
 * shapes of the invocation service's datasets, their numbered immutable versions and rows, as
 * the private API and the operator CLI manage them. The views are in experiments.ts.
 */

/** A dataset's description, at most this many characters. */
export const DATASET_DESCRIPTION_MAX = 2_000;
/** A rows page: at most this many (default DATASET_ROWS_PAGE_DEFAULT). */
export const DATASET_ROWS_PAGE_MAX = 1_000;
export const DATASET_ROWS_PAGE_DEFAULT = 100;
/** What an import reads. */
export const DATASET_IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export type DatasetImportFormat = (typeof DATASET_IMPORT_FORMATS)[number];
/** An import's `columns` (JSON text in a query string): at most this many characters. */
export const DATASET_COLUMNS_MAX_LENGTH = 16 * 1024;
/** The largest version number a request may name (the column is a PostgreSQL integer). */
export const DATASET_VERSION_MAX = 2_147_483_647;

const ROW_FIELDS = ['inputs', 'expected_output', 'metadata'];
const UPDATE_FIELDS = ['id', ...ROW_FIELDS];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why one row (`{inputs, expected_output?, metadata?}`, and `id` for an update) is not
 * acceptable, or undefined: `inputs` an object, `metadata` flat, nothing else.
 */
export function datasetRowProblem(value: unknown, { withId = false }: { withId?: boolean } = {}): ErrorDetail | undefined {
  if (!isPlainObject(value)) return { detail: 'dataset_row_not_object' };
  const allowed = withId ? UPDATE_FIELDS : ROW_FIELDS;
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined) return { detail: 'dataset_row_unknown_field', params: { field: unknown.slice(0, 100) } };
  if (withId && (typeof value.id !== 'string' || !UUID.test(value.id))) return { detail: 'dataset_row_id_invalid' };
  if (!isPlainObject(value.inputs)) return { detail: 'dataset_row_inputs_not_object' };
  if (value.metadata !== undefined && value.metadata !== null) {
    const metadata = flatMetadataProblem(value.metadata);
    if (metadata) return metadata;
  }
  return undefined;
}

/** The first bad row of a list, with its index, or undefined. */
export function datasetRowListProblem(value: unknown, options: { withId?: boolean } = {}): ErrorDetail | undefined {
  if (!Array.isArray(value)) return { detail: 'dataset_rows_not_array' };
  // A list past the row cap is answered by the cap (422 experiment_dataset_row_limit_exceeded),
  // whatever its rows say, and without walking them all.
  if (value.length > DATASET_ROW_LIMIT && !options.withId) return undefined;
  for (const [index, row] of value.entries()) {
    const problem = datasetRowProblem(row, options);
    if (problem) return { detail: 'dataset_row_refused', params: { index, reason: problem } };
  }
  return undefined;
}

/** A list of dataset rows (`withId`: of row updates); see datasetRowListProblem. */
function IsDatasetRowList(options: { withId?: boolean } = {}, validation?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isDatasetRowList',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [options.withId === true],
      options: validation,
      validator: {
        validate: (value: unknown) => datasetRowListProblem(value, options) === undefined,
        defaultMessage: (args) => errorMessage(datasetRowListProblem(args?.value, options) ?? { detail: 'dataset_rows_not_array' }, 'en'),
      },
    });
}

/** The property may be given only when `other` is (`present: true`) or only when it is not (`present: false`). */
function GivenOnlyIf(other: string, present: boolean): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: present ? 'givenOnlyWith' : 'givenOnlyWithout',
      target: target.constructor,
      propertyName: String(propertyName),
      constraints: [other],
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          value === undefined || ((args.object as Record<string, unknown>)[other] !== undefined) === present,
        defaultMessage: (args) =>
          errorMessage(
            { detail: present ? 'dataset_field_needs' : 'dataset_field_excludes', params: { field: args?.property ?? '', other } },
            'en',
          ),
      },
    });
}

export class DatasetFields {
  @IsString()
  @Matches(DATASET_NAME_PATTERN, { message: 'name must be 1 to 100 letters, digits, _, . or -, starting with a letter or digit' })
  name!: string;

  @IsOptional()
  @IsString()
  @MaxLength(DATASET_DESCRIPTION_MAX)
  description?: string;
}

export class CreateDatasetRequest extends WorkspaceIdRequest {
  @ValidateNested()
  @Type(() => DatasetFields)
  dataset!: DatasetFields;
}

export class DatasetIdRequest extends WorkspaceIdRequest {
  @IsUUID()
  dataset_id!: string;
}

/**
 * A new version: full `rows`, or `base_version` with rows to `add` (appended, new ids), `update`
 * (by id: inputs, expected_output and metadata replaced) and `remove` (by id).
 */
export class DatasetVersionFields {
  // Required unless the body names a base version (or changes to one, which then say they need it).
  @ValidateIf(
    (fields: DatasetVersionFields) =>
      fields.rows !== undefined ||
      (fields.base_version === undefined && fields.add === undefined && fields.update === undefined && fields.remove === undefined),
  )
  @GivenOnlyIf('base_version', false)
  @IsDatasetRowList()
  rows?: DatasetRowInput[];

  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(DATASET_VERSION_MAX)
  base_version?: number;

  @GivenOnlyIf('base_version', true)
  @ValidateIf((fields: DatasetVersionFields) => fields.add !== undefined)
  @IsDatasetRowList()
  add?: DatasetRowInput[];

  @GivenOnlyIf('base_version', true)
  @ValidateIf((fields: DatasetVersionFields) => fields.update !== undefined)
  @ArrayMaxSize(DATASET_ROW_LIMIT)
  @IsDatasetRowList({ withId: true })
  update?: DatasetRowUpdate[];

  @GivenOnlyIf('base_version', true)
  @ValidateIf((fields: DatasetVersionFields) => fields.remove !== undefined)
  @IsArray()
  @ArrayMaxSize(DATASET_ROW_LIMIT)
  @IsUUID('all', { each: true })
  remove?: string[];
}

/** A row's replacement: its id in the base version and its new content. */
export interface DatasetRowUpdate extends DatasetRowInput {
  id: string;
}

export class CreateDatasetVersionRequest extends DatasetIdRequest {
  @ValidateNested()
  @Type(() => DatasetVersionFields)
  version!: DatasetVersionFields;
}

/** The query of `POST /v1/private/datasets/{id}/versions/import`. */
export class DatasetImportOptions {
  @IsIn(DATASET_IMPORT_FORMATS)
  format!: DatasetImportFormat;

  /**
   * CSV only: JSON text mapping header names to `inputs.<name>`, `expected_output` or
   * `metadata.<key>` (headers it does not name are left out). Parsed where the rows are made.
   */
  @IsOptional()
  @IsString()
  @MaxLength(DATASET_COLUMNS_MAX_LENGTH)
  columns?: string;

  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(DATASET_VERSION_MAX)
  base_version?: number;
}

export class ImportDatasetVersionRequest extends DatasetIdRequest {
  @ValidateNested()
  @Type(() => DatasetImportOptions)
  options!: DatasetImportOptions;

  /** The upload as text (UTF-8, checked by the gateway). */
  @IsString()
  @MaxLength(DATASET_UPLOAD_MAX_BYTES)
  content!: string;
}

export class DatasetVersionRequest extends DatasetIdRequest {
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(DATASET_VERSION_MAX)
  version!: number;
}

/** The query of a rows page. */
export class DatasetRowsPage {
  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(DATASET_ROWS_PAGE_MAX)
  limit?: number;

  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(0)
  @Max(DATASET_ROW_LIMIT)
  offset?: number;
}

export class ListDatasetRowsRequest extends DatasetVersionRequest {
  @ValidateNested()
  @Type(() => DatasetRowsPage)
  page!: DatasetRowsPage;
}

/** A dataset with its versions, newest first. */
export interface DatasetDetailView extends DatasetView {
  versions: DatasetVersionView[];
}

export interface DatasetRowsPageView {
  rows: DatasetRowView[];
  /** Rows in the version. */
  total: number;
  /** The offset of the next page; null on the last. */
  next_offset: number | null;
}

export const DatasetContracts = {
  listDatasets: rpc('invocation.datasets.list', WorkspaceIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<DatasetView[]>(),
  createDataset: rpc('invocation.datasets.create', CreateDatasetRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<DatasetView>(),
  getDataset: rpc('invocation.datasets.get', DatasetIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<DatasetDetailView>(),
  deleteDataset: rpc('invocation.datasets.delete', DatasetIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<{ id: string }>(),
  createVersion: rpc('invocation.datasets.versions.create', CreateDatasetVersionRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<DatasetVersionView>(),
  importVersion: rpc('invocation.datasets.versions.import', ImportDatasetVersionRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<DatasetVersionView>(),
  listRows: rpc('invocation.datasets.rows.list', ListDatasetRowsRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<DatasetRowsPageView>(),
} as const;

export const DatasetPatterns = patternNames(DatasetContracts);
