import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { numberFromText, WorkspaceIdRequest } from './common.dto';
import {
  EXPERIMENT_CELL_STATUSES,
  RELEASE_LABEL_PATTERN,
  type EvaluatorSpec,
  type ExperimentCellStatus,
  type ExperimentCellView,
  type ExperimentRunView,
} from './experiments';
import { PROMPT_NAME_PATTERN, PromptVariantSpec, REQUEST_ID_FORMAT } from './invocation.patterns';
import { patternNames, PRIVATE_RPC_TIMEOUT_MS, rpc } from './rpc-contract';

/** A run names at most this many candidates (active or not). */
export const EXPERIMENT_CANDIDATE_LIMIT = 20;
/** A run has at most this many evaluators. */
export const EXPERIMENT_EVALUATOR_LIMIT = 20;
/** A page of cells holds at most this many (`limit`, default EXPERIMENT_CELLS_PAGE_DEFAULT). */
export const EXPERIMENT_CELLS_PAGE_MAX = 1000;
export const EXPERIMENT_CELLS_PAGE_DEFAULT = 100;
/** What a candidate may say it is; anything but a prompt is refused with `experiment_candidate_type_unsupported`. */
export const EXPERIMENT_CANDIDATE_TYPES = ['prompt', 'workflow', 'agent'] as const;

/**
 * An inline candidate's prompt: a variant as an apply file declares it, not yet applied. Its
 * name is the candidate's, so the variant's own is optional here.
 */
export class InlinePromptSpec extends PromptVariantSpec {
  @IsOptional()
  declare name: string;
}

/**
 * One candidate of a run: a prompt deployment's variant at a version (`version`, `label`, or the
 * deployed one when neither), or an inline prompt. `workflow`, `agent` and a `type` other than
 * `prompt` are accepted here only to be refused by name (`experiment_candidate_type_unsupported`).
 */
export class ExperimentCandidateSpec {
  @Matches(PROMPT_NAME_PATTERN)
  name!: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  deployment?: string;

  @IsOptional()
  @IsString()
  @Length(1, 200)
  variant?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;

  @IsOptional()
  @Matches(RELEASE_LABEL_PATTERN)
  label?: string;

  /** Inactive candidates are kept in the run's record but make no cells. */
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @IsOptional()
  @ValidateNested()
  @Type(() => InlinePromptSpec)
  inline?: InlinePromptSpec;

  @IsOptional()
  @IsIn(EXPERIMENT_CANDIDATE_TYPES)
  type?: (typeof EXPERIMENT_CANDIDATE_TYPES)[number];

  @Allow()
  workflow?: unknown;

  @Allow()
  agent?: unknown;
}

/** `POST /v1/private/experiment_runs` (the spec's decisions: experiment runs). */
export class ExperimentRunDefinition {
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  /** The dataset's id. */
  @IsString()
  @Length(1, 200)
  dataset!: string;

  @IsInt()
  @Min(1)
  dataset_version!: number;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EXPERIMENT_CANDIDATE_LIMIT)
  @ValidateNested({ each: true })
  @Type(() => ExperimentCandidateSpec)
  candidates!: ExperimentCandidateSpec[];

  /** Checked by the evaluators themselves (their type and options). */
  @IsArray()
  @ArrayMaxSize(EXPERIMENT_EVALUATOR_LIMIT)
  @IsObject({ each: true })
  evaluators!: EvaluatorSpec[];

  /** The candidate the others are compared with. */
  @IsOptional()
  @Matches(PROMPT_NAME_PATTERN)
  baseline?: string;

  /** The pass rate each active candidate must reach (default 1). */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  min_pass_rate?: number;
}

export class CreateExperimentRunRequest extends WorkspaceIdRequest {
  @ValidateNested()
  @Type(() => ExperimentRunDefinition)
  run!: ExperimentRunDefinition;
}

export class ExperimentRunIdRequest extends WorkspaceIdRequest {
  @Matches(REQUEST_ID_FORMAT)
  run_id!: string;
}

/** `GET /v1/private/experiment_runs?limit=&before=`. */
export class ExperimentRunsFilter {
  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  /** The next page: the runs created before this one (the last `id` of the page before). */
  @IsOptional()
  @IsString()
  @Length(1, 128)
  before?: string;
}

export class ListExperimentRunsRequest extends ExperimentRunsFilter {
  @IsUUID()
  workspace_id!: string;
}

/** `GET /v1/private/experiment_runs/{id}/cells?limit=&offset=&candidate=&status=` (without `format`: a page). */
export class ExperimentCellsFilter {
  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(1)
  @Max(EXPERIMENT_CELLS_PAGE_MAX)
  limit?: number;

  @IsOptional()
  @Transform(numberFromText)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  offset?: number;

  @IsOptional()
  @Matches(PROMPT_NAME_PATTERN)
  candidate?: string;

  @IsOptional()
  @IsIn(EXPERIMENT_CELL_STATUSES)
  status?: ExperimentCellStatus;
}

/** The export formats of a run's cells. */
export const EXPERIMENT_EXPORT_FORMATS = ['csv', 'jsonl'] as const;

/** The cells route's query: a page, or with `format` every cell as a file. */
export class ExperimentCellsQuery extends ExperimentCellsFilter {
  @IsOptional()
  @IsIn(EXPERIMENT_EXPORT_FORMATS)
  format?: (typeof EXPERIMENT_EXPORT_FORMATS)[number];
}

export class ExperimentCellsRequest extends ExperimentCellsFilter {
  @IsUUID()
  workspace_id!: string;

  @Matches(REQUEST_ID_FORMAT)
  run_id!: string;
}

/** A page of a run's cells, in row order then candidate order. */
export interface ExperimentCellsPage {
  cells: ExperimentCellView[];
  /** Cells matching the filter. */
  total: number;
  /** The offset of the next page; null on the last. */
  next_offset: number | null;
}

/** One job of the `experiment-cells` queue: one cell (a row × a candidate) of a run. */
export interface ExperimentCellJob {
  workspace_id: string;
  run_id: string;
  cell_id: string;
  /** The cell's own prompt run (its ledger record): the job's id too. */
  request_id: string;
}

export const ExperimentContracts = {
  createRun: rpc('invocation.experiment-runs.create', CreateExperimentRunRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<ExperimentRunView>(),
  listRuns: rpc('invocation.experiment-runs.list', ListExperimentRunsRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<
    ExperimentRunView[]
  >(),
  getRun: rpc('invocation.experiment-runs.get', ExperimentRunIdRequest, { timeoutMs: PRIVATE_RPC_TIMEOUT_MS }).returns<ExperimentRunView>(),
  listCells: rpc('invocation.experiment-runs.cells', ExperimentCellsRequest, {
    timeoutMs: PRIVATE_RPC_TIMEOUT_MS,
  }).returns<ExperimentCellsPage>(),
} as const;

export const ExperimentPatterns = patternNames(ExperimentContracts);
