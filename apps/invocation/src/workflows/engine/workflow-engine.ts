import { Injectable } from '@nestjs/common';
import { nestedMessage, WaggleException } from '@waggle/errors';
import { RunCost, type CostPart } from '@waggle/providers';
import {
  evaluateCondition,
  renderText,
  type ConditionStep,
  type LoopStep,
  type StepRecordScope,
  type WorkflowScope,
  type WorkflowStep,
  type WorkflowVariant,
} from '@waggle/workflows';
import type { StepEnd, StepRecordRow, WorkflowRunRow } from '../runs/workflow-runs.repository';
import { RunFailure } from './run-failure';
import { StepExecutors, type StepResult } from './step-executors';
import type { StepRecords } from './step-records';
import { inRecordSpan, STEP_STATUS, stepAttributes } from './step-spans';

export { cancelledRunFailure, failureText, isRunCancel, RunFailure } from './run-failure';

/** Told each step's key as the step finishes (completed, or failed and continued past). Must not throw. */
export type StepFinished = (stepKey: string) => void;

/** One run's execution state: its row, the records a previous attempt left, and the counters. */
export interface RunExecution {
  run: WorkflowRunRow;
  definition: WorkflowVariant;
  /** Step records by key, from earlier attempts of this run: finished ones are not executed again. */
  previous: Map<string, StepRecordRow>;
  /** Aborted on the run's time-out, when its lease is lost, or when it is cancelled. */
  signal: AbortSignal;
  /** The run's step-record writes. */
  records: StepRecords;
  stepsExecuted: number;
  totalTokens: number;
  /**
   * What the workflow's own model calls cost: each step's calls as the step ends, and on a re-run
   * those of the steps it does not execute again (from their records). An agent step's calls are
   * its agent run's, recorded there (see WorkflowRunEntity.costMicros).
   */
  cost: RunCost;
  /** Set when a caller wants each step told as it finishes (an MCP client's progress); off the path otherwise. */
  onStepFinished?: StepFinished;
}

/** The run's inputs with the variant's defaults filled in: the scope every template starts from. */
export function initialScope(definition: WorkflowVariant, inputs: Record<string, unknown>): WorkflowScope {
  const scope: WorkflowScope = {};
  for (const [name, input] of Object.entries(definition.inputs)) {
    if (inputs[name] !== undefined) scope[name] = inputs[name];
    else if (input.default !== undefined) scope[name] = input.default;
    else scope[name] = null;
  }
  return scope;
}

const LOOP_ITERATION = 'loop_iteration';

/**
 * Runs a variant's step tree in its fixed order. Every executed step has one record (written when
 * it starts and when it ends, or only when it ends for a step with no side effect until then:
 * isSideEffectFree); a step whose record says it finished is not executed again, so a
 * job re-run after a crash continues where the last attempt stopped without repeating a model or
 * tool call that completed.
 */
@Injectable()
export class WorkflowEngine {
  constructor(private readonly executors: StepExecutors) {}

  /** Runs every step and answers the variant's rendered output; throws RunFailure. */
  async execute(execution: RunExecution): Promise<string> {
    const scope = initialScope(execution.definition, execution.run.start_inputs);
    await this.runList(execution, execution.definition.steps, scope, '', null);
    return renderText(execution.definition.output, scope);
  }

  private async runList(
    execution: RunExecution,
    steps: WorkflowStep[],
    scope: WorkflowScope,
    prefix: string,
    iteration: number | null,
  ): Promise<void> {
    for (const step of steps) await this.runStep(execution, step, scope, prefix, iteration);
  }

  private checkpoint(execution: RunExecution, stepId: string): void {
    if (execution.signal.aborted) {
      const reason: unknown = execution.signal.reason;
      throw reason instanceof RunFailure
        ? reason
        : new RunFailure('internal_server_error', { detail: 'workflow_run_stopped' }, stepId, true);
    }
    execution.stepsExecuted += 1;
    const limit = execution.run.step_limit;
    if (limit !== null && execution.stepsExecuted > limit) {
      throw new RunFailure(
        'workflow_step_limit_reached',
        nestedMessage({ detail: 'workflow_run_step_limit', params: { limit } }),
        stepId,
        true,
      );
    }
  }

  private async runStep(
    execution: RunExecution,
    step: WorkflowStep,
    scope: WorkflowScope,
    prefix: string,
    iteration: number | null,
  ): Promise<void> {
    const key = `${prefix}${step.id}`;
    this.checkpoint(execution, step.id);
    const previous = execution.previous.get(key);
    if (step.type === 'condition') {
      return inRecordSpan(
        `step ${step.id}`,
        stepAttributes(step, previous),
        () => this.runCondition(execution, step, scope, key, prefix, iteration, previous),
        STEP_STATUS,
      );
    }
    if (previous?.status === 'completed') {
      scope[step.id] = { output: previous.output, error: null } satisfies StepRecordScope;
      replayed(execution, previous, step, key);
      return;
    }
    if (previous?.status === 'failed' && step.on_error === 'continue') {
      scope[step.id] = { output: null, error: previous.error } satisfies StepRecordScope;
      replayed(execution, previous, step, key);
      return;
    }
    if (step.type === 'loop') return this.runLoop(execution, step, scope, key, iteration);
    await this.recorded(
      execution,
      step,
      key,
      iteration,
      scope,
      (inputs, cost) => this.executors.run(step, inputs, execution, key, cost),
      () => this.executors.inputsOf(step, scope),
    );
  }

  /**
   * Starts a step's record, executes it, ends the record, and puts its result in the scope. A
   * step's failure ends the run unless its `on_error` is `continue`. The step's span
   * (`step {id}`) is active the whole time, so what the step calls is its child.
   */
  private recorded(
    execution: RunExecution,
    step: WorkflowStep,
    key: string,
    iteration: number | null,
    scope: WorkflowScope,
    execute: StepWork,
    resolveInputs: () => Record<string, unknown>,
  ): Promise<void> {
    return inRecordSpan(
      `step ${step.id}`,
      stepAttributes(step, execution.previous.get(key)),
      () => this.record(execution, step, key, iteration, scope, execute, resolveInputs),
      STEP_STATUS,
    );
  }

  /** The work of `recorded`: answers the failure recorded and continued past, or null when the step completed. */
  private async record(
    execution: RunExecution,
    step: WorkflowStep,
    key: string,
    iteration: number | null,
    scope: WorkflowScope,
    execute: StepWork,
    resolveInputs: () => Record<string, unknown>,
  ): Promise<RunFailure | null> {
    const runId = execution.run.id;
    let inputs: Record<string, unknown> = {};
    let failure: RunFailure | null = null;
    let result: StepResult | null = null;
    try {
      inputs = resolveInputs();
    } catch (error) {
      failure = RunFailure.of(error, step.id);
    }
    const start = { runId, key, stepId: step.id, type: step.type, iteration, inputs: this.executors.recordable(inputs) };
    // A step with no side effect before it finishes has one record, written when it ends: a
    // crash before then repeats only work that left nothing behind.
    const folded = isSideEffectFree(step);
    const startedAt = performance.now();
    if (!folded) await execution.records.started(start);
    const calls = new RunCost();
    if (!failure) {
      try {
        result = await execute(inputs, calls);
      } catch (error) {
        failure = RunFailure.of(error, step.id);
        if (execution.signal.aborted && execution.signal.reason instanceof RunFailure) failure = execution.signal.reason;
      }
    }
    // The step's calls cost what they cost whether it completed or failed (a repair that did not hold, a cancel).
    const cost = calls.part();
    execution.cost.addPart(cost);
    if (result) {
      execution.totalTokens += result.tokens;
      const end: StepEnd = {
        runId,
        key,
        status: 'completed',
        output: result.output,
        error: null,
        errorCode: null,
        tokens: result.tokens,
        modelCalls: result.modelCalls,
        modelAttempts: result.modelAttempts ?? null,
        cost,
      };
      if (folded) execution.records.finished(start, end, performance.now() - startedAt, step.type === 'prompt');
      else await execution.records.ended(end);
      scope[step.id] = { output: result.output, error: null } satisfies StepRecordScope;
      execution.onStepFinished?.(key);
      return null;
    }
    const failed = failure ?? new RunFailure('internal_server_error', { detail: 'workflow_step_error' }, step.id);
    if (folded)
      execution.records.finished(start, failedEnd(runId, key, failed, cost), performance.now() - startedAt, step.type === 'prompt');
    else await this.endFailed(execution, key, failed, cost);
    if (failed.fatal || step.on_error === 'fail') throw failed;
    scope[step.id] = { output: null, error: failed.message } satisfies StepRecordScope;
    execution.onStepFinished?.(key);
    return failed;
  }

  /**
   * A condition: `when` evaluated (the choice is kept in its record's inputs, so a re-run takes
   * the same branch), then the branch's steps in the same scope. Its output is the output of the
   * branch's last step (null for an empty branch or a last step that failed and was continued).
   * Answers the failure of `when` when it was continued past, else null.
   */
  private async runCondition(
    execution: RunExecution,
    step: ConditionStep,
    scope: WorkflowScope,
    key: string,
    prefix: string,
    iteration: number | null,
    previous: StepRecordRow | undefined,
  ): Promise<RunFailure | null> {
    const runId = execution.run.id;
    let decided = previous?.inputs as { result: boolean; branch: 'then' | 'else' } | null | undefined;
    if (!decided || typeof decided.result !== 'boolean') {
      try {
        const result = evaluateCondition(step.when, scope);
        decided = { result, branch: result ? 'then' : 'else' };
      } catch (error) {
        const failure = RunFailure.of(error, step.id);
        await execution.records.started({ runId, key, stepId: step.id, type: step.type, iteration, inputs: {} });
        await this.endFailed(execution, key, failure);
        if (step.on_error === 'fail') throw failure;
        scope[step.id] = { output: null, error: failure.message } satisfies StepRecordScope;
        execution.onStepFinished?.(key);
        return failure;
      }
    }
    const finished = previous?.status === 'completed';
    const start = { runId, key, stepId: step.id, type: step.type, iteration, inputs: decided };
    // A branch with no side effect needs no record of the choice before it runs (see isSideEffectFree).
    const folded = isSideEffectFree(step);
    const startedAt = performance.now();
    if (!finished && !folded) await execution.records.started(start);
    const steps = decided.branch === 'then' ? step.then : (step.else ?? []);
    try {
      await this.runList(execution, steps, scope, prefix, iteration);
    } catch (error) {
      const failure = RunFailure.of(error, step.id);
      if (folded) execution.records.finished(start, failedEnd(runId, key, failure), performance.now() - startedAt, false);
      else await this.endFailed(execution, key, failure);
      throw failure;
    }
    const last = steps.length > 0 ? (scope[steps[steps.length - 1].id] as StepRecordScope | undefined) : undefined;
    const output = last && last.error === null ? last.output : null;
    if (!finished) {
      const end: StepEnd = { runId, key, status: 'completed', output, error: null, errorCode: null, tokens: 0, modelCalls: 0 };
      if (folded) execution.records.finished(start, end, performance.now() - startedAt, false);
      else await execution.records.ended(end);
    }
    scope[step.id] = { output, error: null } satisfies StepRecordScope;
    execution.onStepFinished?.(key);
    return null;
  }

  /**
   * A loop: its `over` list (at most `max_iterations` elements, else iteration_limit_exceeded),
   * iterations run `concurrency` at a time, each with its own record and its body's records. Its
   * output is the list of each iteration's last step output, iterations whose last step failed
   * (and was continued) left out.
   */
  private async runLoop(
    execution: RunExecution,
    step: LoopStep,
    scope: WorkflowScope,
    key: string,
    iteration: number | null,
  ): Promise<void> {
    let items: unknown[] = [];
    const iterate = async (): Promise<StepResult> => {
      const outputs: Array<{ value: unknown } | null> = new Array<{ value: unknown } | null>(items.length).fill(null);
      let next = 0;
      let stop: RunFailure | null = null;
      const worker = async () => {
        while (stop === null && next < items.length) {
          const index = next++;
          try {
            outputs[index] = await this.runIteration(execution, step, scope, key, index, items[index]);
          } catch (error) {
            stop ??= RunFailure.of(error, step.id);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(step.concurrency, Math.max(items.length, 1)) }, worker));
      if (stop) throw stop;
      return { output: outputs.filter((entry) => entry !== null).map((entry) => entry.value), tokens: 0, modelCalls: 0 };
    };
    await this.recorded(execution, step, key, iteration, scope, iterate, () => {
      const over = this.executors.render(step.over, scope);
      if (!Array.isArray(over))
        throw new WaggleException('validation_error', {
          detail: 'loop_over_not_list',
          params: { step: step.id, type: over === null ? 'null' : typeof over },
        });
      if (over.length > step.max_iterations) {
        throw new WaggleException('iteration_limit_exceeded', {
          detail: 'loop_too_many_items',
          params: { step: step.id, count: over.length, max: step.max_iterations },
        });
      }
      items = over;
      return { items: over.length };
    });
  }

  /**
   * One iteration: its own record, then its body with `item` and `index`. Answers its output
   * (null when its last step failed). An iteration that runs has a span (`iteration {index}`,
   * child of the loop step's) its steps are children of, whichever of the loop's concurrent
   * workers runs it.
   */
  private async runIteration(
    execution: RunExecution,
    step: LoopStep,
    scope: WorkflowScope,
    loopKey: string,
    index: number,
    item: unknown,
  ): Promise<{ value: unknown } | null> {
    const key = `${loopKey}#${index}`;
    const previous = execution.previous.get(key);
    if (previous?.status === 'completed') {
      replayedUnder(execution, `${key}.`);
      const recorded = previous.output as { value: unknown } | null;
      return recorded;
    }
    let output: { value: unknown } | null = null;
    await inRecordSpan(`iteration ${index}`, { 'waggle.workflow.loop.index': index }, async () => {
      const runId = execution.run.id;
      await execution.records.started({ runId, key, stepId: step.id, type: LOOP_ITERATION, iteration: index, inputs: { index, item } });
      const iterationScope: WorkflowScope = { ...scope, item, index };
      try {
        await this.runList(execution, step.steps, iterationScope, `${key}.`, index);
      } catch (error) {
        const failure = RunFailure.of(error, step.id);
        await this.endFailed(execution, key, failure);
        throw failure;
      }
      const last = iterationScope[step.steps[step.steps.length - 1].id] as StepRecordScope | undefined;
      output = last && last.error === null ? { value: last.output } : null;
      await execution.records.ended({ runId, key, status: 'completed', output, error: null, errorCode: null, tokens: 0, modelCalls: 0 });
      return null;
    });
    return output;
  }

  /** A step's (or a condition's, an iteration's) record ends failed, with no tokens and what its calls cost. */
  private endFailed(execution: RunExecution, key: string, failure: RunFailure, cost?: CostPart): Promise<void> {
    return execution.records.ended(failedEnd(execution.run.id, key, failure, cost));
  }
}

/** A step's work, its model calls added to `cost` (a RunCost of the step's own) as they end. */
type StepWork = (inputs: Record<string, unknown>, cost: RunCost) => Promise<StepResult>;

/**
 * A step a re-run does not execute again (it ended in an earlier attempt): what its record says
 * it used joins the run's counters, and for a loop, which is not entered again, what every record
 * under it (its iterations and their steps) used.
 */
function replayed(execution: RunExecution, record: StepRecordRow, step?: WorkflowStep, key?: string): void {
  execution.totalTokens += record.tokens;
  execution.cost.addPart({ picoUsd: record.cost_picos, priceVersion: record.price_version, credentials: record.credentials });
  if (step?.type === 'loop') replayedUnder(execution, `${key}#`);
}

/** Every record under `prefix` (a finished loop's, or a finished iteration's, `pages#3.`) replayed. */
function replayedUnder(execution: RunExecution, prefix: string): void {
  for (const [key, record] of execution.previous) if (key.startsWith(prefix)) replayed(execution, record);
}

function failedEnd(runId: string, key: string, failure: RunFailure, cost?: CostPart): StepEnd {
  // A model step that failed after a fallback or a repair keeps its calls (D41).
  const attempts = (failure.details as { attempts?: unknown } | undefined)?.attempts;
  const modelAttempts = Array.isArray(attempts) ? (attempts as unknown[]) : null;
  const modelCalls = modelAttempts?.length ?? 0;
  return {
    runId,
    key,
    status: 'failed',
    output: null,
    error: failure.message,
    errorCode: failure.code,
    tokens: 0,
    modelCalls,
    modelAttempts,
    ...(cost && { cost }),
  };
}

/**
 * Whether a step leaves nothing behind until it has finished, so running it again after a crash
 * repeats no effect: a template, a model call with the step's own messages (no tools), and a
 * condition whose branches hold only such steps. Anything that reaches another service or the
 * outside (http, agent, search, scrape, a deployed prompt, whose variant may call tools) and a
 * loop (its iterations have records of their own) is recorded when it starts, so a re-run knows.
 */
export function isSideEffectFree(step: WorkflowStep): boolean {
  switch (step.type) {
    case 'template':
      return true;
    case 'prompt':
      return step.model !== undefined;
    case 'condition':
      return [...step.then, ...(step.else ?? [])].every(isSideEffectFree);
    default:
      return false;
  }
}
