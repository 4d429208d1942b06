import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { REQUEST_ID_FORMAT } from './invocation.patterns';
import type { RunStatus } from './ledger';
import { patternNames, rpc, SYNC_RUN_TIMEOUT_MS } from './rpc-contract';
import { RunLabels } from './run-labels';

/** `async` of a workflow invoke: `enabled`, and where the result goes when it is. */
export class WorkflowAsyncOptions {
  @IsDefined()
  @IsBoolean()
  enabled!: boolean;

  /** Required when enabled (checked by the gateway, which names it as missing). */
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  callback_url?: string;
}

/** The public body of `POST /v1/workflow/invoke`. */
export class WorkflowInvokeInputs extends RunLabels {
  @IsString()
  @Length(1, 200)
  deployment!: string;

  @IsString()
  @Length(1, 200)
  variant!: string;

  /** Values of the variant's declared inputs. */
  @IsOptional()
  @IsObject()
  inputs?: Record<string, unknown>;

  @IsOptional()
  @ValidateNested()
  @Type(() => WorkflowAsyncOptions)
  async?: WorkflowAsyncOptions;
}

/** The workspace's plan values a run is accepted under (null = unlimited), from the gateway's key check. */
export class WorkflowRunLimits {
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  concurrency!: number | null;

  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  steps_per_run!: number | null;

  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  tool_calls_per_day!: number | null;
}

/** A workflow invoke as the gateway hands it to the invocation service. */
export class WorkflowRunRequest extends WorkflowInvokeInputs {
  @IsUUID()
  workspace_id!: string;

  @Matches(REQUEST_ID_FORMAT)
  request_id!: string;

  @ValidateNested()
  @Type(() => WorkflowRunLimits)
  limits!: WorkflowRunLimits;
}

/** The spec's three answers of a workflow invoke. */
export type WorkflowInvokeResponse =
  | { request_id: string; run_status: 'completed'; output: string }
  | { request_id: string; run_status: 'running' | 'queued'; webhook_secret: string };

export class WorkflowRunLookupRequest {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 100)
  request_id!: string;
}

/** decisions "workflow run lookup": `GET /v1/workflow_runs/{id}` answers `{workflow_run: this}`. */
export interface WorkflowRunView {
  id: string;
  /** The run's public token: its request id. */
  token: string;
  run_status: RunStatus;
  run_async: boolean;
  start_inputs: Record<string, unknown>;
  output_content: string | null;
  error_message: string | null;
  started_at: string | null;
  ended_at: string | null;
  /** Seconds, once ended. */
  duration: number | null;
  total_tokens: number;
  async_webhook_url: string | null;
}

/** One step record of a run, as the private route lists it, in execution order. */
export interface WorkflowStepRecordView {
  step_key: string;
  step_id: string;
  step_type: string;
  iteration: number | null;
  status: 'running' | 'completed' | 'failed';
  inputs: unknown;
  output: unknown;
  error: string | null;
  error_code: string | null;
  tokens: number;
  model_calls: number;
  /** A model step's calls when a fallback could answer or it took more than one: model, error code, duration (D41). */
  model_attempts?: unknown[];
  /** How often the step was run (a re-run after a lost lease counts one more). */
  attempts: number;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
}

/** A workflow run to execute (queue `workflow-runs`, job id = request_id). Everything else is in its row. */
export interface WorkflowRunJob {
  request_id: string;
  workspace_id: string;
}

/** Published when a run reaches a terminal state, so a replica holding its sync invoke answers at once. */
export const WORKFLOW_RUN_FINISHED_SUBJECT = 'invocation.workflow-runs.finished';

export interface WorkflowRunFinishedMessage {
  request_id: string;
}

/** Workflow runs: invoke (sync or async under the concurrency cap), lookup and step records. */
export const WorkflowRunContracts = {
  invokeWorkflow: rpc('invocation.workflow-runs.invoke', WorkflowRunRequest, {
    timeoutMs: SYNC_RUN_TIMEOUT_MS,
  }).returns<WorkflowInvokeResponse>(),
  getWorkflowRun: rpc('invocation.workflow-runs.get', WorkflowRunLookupRequest).returns<WorkflowRunView>(),
  listWorkflowRunSteps: rpc('invocation.workflow-runs.steps', WorkflowRunLookupRequest).returns<WorkflowStepRecordView[]>(),
};

export const WorkflowRunPatterns = patternNames(WorkflowRunContracts);
