import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  DATASET_DESCRIPTION_MAX,
  DATASET_IMPORT_FORMATS,
  DATASET_ROW_LIMIT,
  DATASET_ROW_MAX_BYTES,
  DATASET_ROWS_PAGE_DEFAULT,
  DATASET_ROWS_PAGE_MAX,
} from '@waggle/contracts';

// What the OpenAPI document says about the datasets' private routes (the spec's decisions on
// experiments and releases). The bodies are validated with the contract's classes; these describe them.

const ROW_SIZE = `A row's JSON is at most ${DATASET_ROW_MAX_BYTES / 1024} KiB (413 validation_error naming the row)`;

/** `POST /v1/private/datasets`. */
export class DatasetFieldsDoc {
  @ApiProperty({
    pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$',
    description: 'Unique in the workspace',
    example: 'support-questions',
  })
  name!: string;

  @ApiPropertyOptional({ maxLength: DATASET_DESCRIPTION_MAX })
  description?: string;
}

/** One row as a client gives it. */
export class DatasetRowDoc {
  @ApiProperty({ type: 'object', additionalProperties: true, description: "The template's variables", example: { question: 'Hi?' } })
  inputs!: Record<string, unknown>;

  @ApiPropertyOptional({ description: 'Text or any JSON value: what evaluators compare the output with' })
  expected_output?: unknown;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }], nullable: true },
    description: 'Flat: string, number, boolean or null values',
  })
  metadata?: Record<string, unknown>;
}

/** A replacement of a base version's row. */
export class DatasetRowUpdateDoc extends DatasetRowDoc {
  @ApiProperty({ format: 'uuid', description: "The row's id in the base version" })
  id!: string;
}

/** `POST /v1/private/datasets/{id}/versions`: `rows`, or `base_version` with its changes. */
export class DatasetVersionFieldsDoc {
  @ApiPropertyOptional({
    type: [DatasetRowDoc],
    description: `Every row of the new version (not with base_version); at most ${DATASET_ROW_LIMIT}. ${ROW_SIZE}`,
  })
  rows?: DatasetRowDoc[];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'The version whose rows (and their ids) the new one starts from' })
  base_version?: number;

  @ApiPropertyOptional({ type: [DatasetRowDoc], description: 'Rows appended, each with a new id (with base_version)' })
  add?: DatasetRowDoc[];

  @ApiPropertyOptional({
    type: [DatasetRowUpdateDoc],
    description: 'Rows of the base version replaced in place, by id (with base_version)',
  })
  update?: DatasetRowUpdateDoc[];

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', format: 'uuid' },
    description: 'Ids of rows of the base version left out (with base_version)',
  })
  remove?: string[];
}

export class DatasetDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'string', nullable: true })
  description!: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: "The newest version's number; null before the first" })
  latest_version!: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class DatasetListDto {
  @ApiProperty({ type: [DatasetDto], description: 'By name' })
  datasets!: DatasetDto[];
}

export class DatasetVersionDto {
  @ApiProperty({ format: 'uuid' })
  dataset_id!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  version!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The version it was made from' })
  base_version!: number | null;

  @ApiProperty({ type: 'integer' })
  row_count!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class DatasetDetailDto extends DatasetDto {
  @ApiProperty({ type: [DatasetVersionDto], description: 'Newest first' })
  versions!: DatasetVersionDto[];
}

export class DatasetRowDto {
  @ApiProperty({ format: 'uuid', description: 'Kept by every version made from this one' })
  id!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  inputs!: Record<string, unknown>;

  @ApiProperty({ nullable: true, description: 'Text or any JSON value; null when the row has none' })
  expected_output!: unknown;

  @ApiProperty({ type: 'object', additionalProperties: true })
  metadata!: Record<string, unknown>;
}

export class DatasetRowsPageDto {
  @ApiProperty({ type: [DatasetRowDto], description: 'In order' })
  rows!: DatasetRowDto[];

  @ApiProperty({ type: 'integer', description: 'Rows in the version' })
  total!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The offset of the next page; null on the last' })
  next_offset!: number | null;
}

export class DatasetDeletedDto {
  @ApiProperty({ example: 'Dataset deleted successfully' })
  message!: string;
}

export const IMPORT_QUERY = {
  format: { name: 'format', required: true, enum: DATASET_IMPORT_FORMATS, description: 'How the body is read' },
  columns: {
    name: 'columns',
    required: false,
    type: String,
    description:
      'CSV only: a JSON object mapping header names to `inputs.<name>`, `expected_output` or `metadata.<key>` (other headers are left out). Without it every header is an input, except one named `expected_output`',
    example: '{"question":"inputs.question","answer":"expected_output","topic":"metadata.topic"}',
  },
  base_version: {
    name: 'base_version',
    required: false,
    type: Number,
    description: "Append the upload's rows to this version's",
  },
} as const;

export const ROWS_QUERY = {
  limit: {
    name: 'limit',
    required: false,
    type: Number,
    description: `Rows per page, 1 to ${DATASET_ROWS_PAGE_MAX} (default ${DATASET_ROWS_PAGE_DEFAULT})`,
  },
  offset: { name: 'offset', required: false, type: Number, description: 'Rows to skip (default 0)' },
} as const;
