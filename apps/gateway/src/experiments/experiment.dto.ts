import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  EVALUATOR_TYPES,
  EXPERIMENT_CANDIDATE_LIMIT,
  EXPERIMENT_CELL_LIMIT_DEFAULT,
  EXPERIMENT_CELL_STATUSES,
  EXPERIMENT_CELLS_PAGE_DEFAULT,
  EXPERIMENT_CELLS_PAGE_MAX,
  EXPERIMENT_EVALUATOR_LIMIT,
  EXPERIMENT_RUN_STATUSES,
} from '@waggle/contracts';

// What the OpenAPI document says about the experiment runs' private routes (the spec's decisions on
// experiments and releases). The bodies are validated with the contract's classes; these describe them.

const NAME = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$';
const FREE_OBJECT = { type: 'object', additionalProperties: true } as const;

/** An inline candidate's prompt: a variant as an apply file declares it. */
export class InlinePromptDoc {
  @ApiProperty({ description: 'A catalog model id', example: 'gpt-4o-mini' })
  model!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'object', properties: { role: { enum: ['system', 'user', 'assistant'] }, content: { type: 'string' } } },
    description: 'LiquidJS templates over the row inputs',
  })
  messages!: Array<{ role: string; content: string }>;

  @ApiPropertyOptional(FREE_OBJECT)
  params?: Record<string, unknown>;

  @ApiPropertyOptional({ ...FREE_OBJECT, description: 'The JSON Schema the answer must match' })
  response_format?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String] })
  fallbacks?: string[];

  @ApiPropertyOptional({ type: [String] })
  image_inputs?: string[];
}

/** One candidate: a saved variant at a version, or an inline prompt. */
export class ExperimentCandidateDoc {
  @ApiProperty({ pattern: NAME, description: 'Unique in the run' })
  name!: string;

  @ApiPropertyOptional({ description: 'With variant: a saved prompt variant' })
  deployment?: string;

  @ApiPropertyOptional()
  variant?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'A version number (not with label); neither: the deployed version' })
  version?: number;

  @ApiPropertyOptional({ pattern: '^[a-z0-9_.-]{1,36}$', description: 'A label (`latest`, `deployed` or the variant’s own)' })
  label?: string;

  @ApiPropertyOptional({ default: true, description: 'An inactive candidate makes no cells' })
  active?: boolean;

  @ApiPropertyOptional({ type: InlinePromptDoc, description: 'An inline prompt, not applied (not with deployment/variant)' })
  inline?: InlinePromptDoc;

  @ApiPropertyOptional({
    enum: ['prompt', 'workflow', 'agent'],
    description: 'workflow and agent (as `workflow` or `agent` fields) answer 422 experiment_candidate_type_unsupported',
  })
  type?: string;
}

/** `POST /v1/private/experiment_runs`. */
export class ExperimentRunDefinitionDoc {
  @ApiPropertyOptional({ maxLength: 200 })
  name?: string;

  @ApiProperty({ format: 'uuid', description: "The dataset's id" })
  dataset!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  dataset_version!: number;

  @ApiProperty({
    type: [ExperimentCandidateDoc],
    minItems: 1,
    maxItems: EXPERIMENT_CANDIDATE_LIMIT,
    description: `Cells are rows × active candidates, at most EXPERIMENT_CELL_LIMIT (default ${EXPERIMENT_CELL_LIMIT_DEFAULT})`,
  })
  candidates!: ExperimentCandidateDoc[];

  @ApiProperty({
    type: 'array',
    maxItems: EXPERIMENT_EVALUATOR_LIMIT,
    items: { type: 'object', properties: { type: { enum: [...EVALUATOR_TYPES] }, name: { type: 'string' } }, additionalProperties: true },
    description: 'Each gives {score, passed, reason}; a cell passes when every evaluator passes',
  })
  evaluators!: Array<Record<string, unknown>>;

  @ApiPropertyOptional({ description: 'The candidate the others are compared with' })
  baseline?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 1, description: 'The pass rate each active candidate must reach' })
  min_pass_rate?: number;
}

export class ExperimentCandidateViewDto {
  @ApiProperty() name!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty() inline!: boolean;
  @ApiProperty({ type: 'string', nullable: true }) deployment!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) variant!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) label!: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) version!: number | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'Null for an inline candidate' }) version_id!: string | null;
  @ApiProperty() model!: string;
}

export class ExperimentCountsDto {
  @ApiProperty({ type: 'integer' }) cells!: number;
  @ApiProperty({ type: 'integer' }) pending!: number;
  @ApiProperty({ type: 'integer' }) succeeded!: number;
  @ApiProperty({ type: 'integer' }) errored!: number;
}

export class ExperimentCandidateSummaryDto {
  @ApiProperty() candidate!: string;
  @ApiProperty({ type: 'integer' }) rows!: number;
  @ApiProperty({ type: 'integer' }) passed!: number;
  @ApiProperty({ type: 'integer' }) errors!: number;
  @ApiProperty({ minimum: 0, maximum: 1 }) pass_rate!: number;
  @ApiProperty() met_threshold!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' } }) mean_scores!: Record<string, number>;
  @ApiProperty({ type: 'object', properties: { p50: { type: 'integer', nullable: true }, p95: { type: 'integer', nullable: true } } })
  latency_ms!: { p50: number | null; p95: number | null };
  @ApiProperty({ type: 'object', properties: { input: { type: 'integer' }, output: { type: 'integer' }, total: { type: 'integer' } } })
  tokens!: { input: number; output: number; total: number };
  @ApiProperty({ type: 'integer', description: 'micro-USD' }) cost_micros!: number;
  @ApiPropertyOptional({
    type: 'object',
    description: 'Against the baseline (absent on the baseline and without one)',
    properties: {
      baseline: { type: 'string' },
      pass_rate_delta: { type: 'number' },
      mean_score_deltas: { type: 'object', additionalProperties: { type: 'number' } },
      latency_p50_delta_ms: { type: 'integer', nullable: true },
      cost_micros_delta: { type: 'integer' },
      regressed_rows: { type: 'array', items: { type: 'string' }, description: 'Passed on the baseline, not here' },
    },
  })
  vs_baseline?: Record<string, unknown>;
}

export class ExperimentRunDto {
  @ApiProperty({ pattern: '^req_[0-9a-f]{32}$', description: 'A request id: POST /v1/public/requests/{id}/cancel cancels the run' })
  id!: string;
  @ApiProperty({ type: 'string', nullable: true }) name!: string | null;
  @ApiProperty({ enum: EXPERIMENT_RUN_STATUSES }) status!: string;
  @ApiProperty({ format: 'uuid' }) dataset_id!: string;
  @ApiProperty({ type: 'integer' }) dataset_version!: number;
  @ApiProperty({ type: [ExperimentCandidateViewDto] }) candidates!: ExperimentCandidateViewDto[];
  @ApiProperty({ type: 'array', items: FREE_OBJECT }) evaluators!: Array<Record<string, unknown>>;
  @ApiProperty({ type: 'string', nullable: true }) baseline!: string | null;
  @ApiProperty() min_pass_rate!: number;
  @ApiProperty({ type: ExperimentCountsDto }) counts!: ExperimentCountsDto;
  @ApiProperty({ type: [ExperimentCandidateSummaryDto], description: 'Per active candidate; a running run’s from its cells so far' })
  summary!: ExperimentCandidateSummaryDto[];
  @ApiProperty({ type: 'object', nullable: true, properties: { code: { type: 'string' }, message: { type: 'string' } } })
  error!: { code: string; message: string } | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) finished_at!: string | null;
}

export class ExperimentRunListDto {
  @ApiProperty({ type: [ExperimentRunDto] }) experiment_runs!: ExperimentRunDto[];
}

export class ExperimentCellDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() row_id!: string;
  @ApiProperty() candidate!: string;
  @ApiProperty({ enum: EXPERIMENT_CELL_STATUSES }) status!: string;
  @ApiProperty({ description: "The cell's prompt run: its ledger record, cancellable" }) request_id!: string;
  @ApiProperty({ nullable: true, description: 'Text, or the parsed JSON of a structured output' }) output!: unknown;
  @ApiProperty({ type: 'object', nullable: true, properties: { code: { type: 'string' }, message: { type: 'string' } } })
  error!: { code: string; message: string } | null;
  @ApiProperty({ type: 'integer', nullable: true }) latency_ms!: number | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) usage!: Record<string, unknown> | null;
  @ApiProperty({ type: 'integer', nullable: true }) cost_micros!: number | null;
  @ApiProperty({ type: 'array', items: FREE_OBJECT }) evaluations!: Array<Record<string, unknown>>;
  @ApiProperty() passed!: boolean;
}

export class ExperimentCellsPageDto {
  @ApiProperty({ type: [ExperimentCellDto] }) cells!: ExperimentCellDto[];
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: 'integer', nullable: true }) next_offset!: number | null;
}

export const CELLS_QUERY = {
  limit: {
    name: 'limit',
    required: false,
    type: 'integer',
    description: `1 to ${EXPERIMENT_CELLS_PAGE_MAX}, default ${EXPERIMENT_CELLS_PAGE_DEFAULT}`,
  },
  offset: { name: 'offset', required: false, type: 'integer', description: 'Cells to skip (row order, then candidate order)' },
  candidate: { name: 'candidate', required: false, type: String, description: "Only this candidate's cells" },
  status: { name: 'status', required: false, enum: EXPERIMENT_CELL_STATUSES },
  format: {
    name: 'format',
    required: false,
    enum: ['csv', 'jsonl'],
    description: 'Every cell as a file (limit and offset ignored): CSV with a header, or JSONL of cells',
  },
} as const;
