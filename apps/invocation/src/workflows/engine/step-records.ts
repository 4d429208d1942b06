import type { StepEnd, StepRecordWrite, StepStart, WorkflowRunsRepository } from '../runs/workflow-runs.repository';

/**
 * One run's step-record writes, in as few round trips as the guarantees allow:
 *
 * - a step with side effects (isSideEffectFree false) has its start written, and waited for,
 *   before it runs, and its end after: a re-run knows it started;
 * - a side-effect-free step has one record, written when it ended. A model call's record is
 *   sent at the end of the event loop's turn and not waited for, so the next step starts
 *   meanwhile (the run's end, when it comes first, takes it along); a step that costs nothing
 *   to repeat (a template, a condition) is held and goes with the next write;
 * - every write waits for those before it, and whatever is held at the end goes with the
 *   run's terminal move (WorkflowRunsRepository.finish), so a run never ends without its records.
 *
 * A crash can lose only records of side-effect-free steps, which a re-run repeats without
 * effect; a model call's record is lost only if the crash comes before its write lands.
 */
export class StepRecords {
  private held: Array<{ record: StepRecordWrite; endedAt: number }> = [];
  private inFlight = new Set<Promise<void>>();
  private failure: unknown = null;

  constructor(private readonly runs: WorkflowRunsRepository) {}

  /** A step with side effects starts: everything before it, then its start record, written and waited for. */
  async started(start: StepStart): Promise<void> {
    await this.settled();
    await this.runs.recordSteps([...this.takeHeld(), toWrite(start, null, 0, 0)]);
  }

  /** A step with side effects ended: everything before it written, then its end. */
  async ended(end: StepEnd): Promise<void> {
    await this.settled();
    const held = this.takeHeld();
    if (held.length > 0) await this.runs.recordSteps(held);
    await this.runs.endStep(end);
  }

  /**
   * A side-effect-free step ended after `durationMs`: its whole record, held (a step that costs
   * nothing to repeat) or, `costly`, sent at the end of this turn of the event loop unless a
   * write that must happen anyway (the next start, the run's end) takes it first.
   */
  finished(start: StepStart, end: StepEnd, durationMs: number, costly: boolean): void {
    this.held.push({ record: toWrite(start, end, durationMs, 0), endedAt: performance.now() });
    if (costly) setImmediate(() => this.send());
  }

  /** Sends what is held, without waiting (a failure is thrown by the next write or drain). */
  private send(): void {
    const held = this.takeHeld();
    if (held.length === 0) return;
    const write = this.runs.recordSteps(held).then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= error;
      },
    );
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  /** The run ends: waits for the writes sent, and answers the held records, to be written with the terminal move. */
  async drain(): Promise<StepRecordWrite[]> {
    await this.settled();
    return this.takeHeld();
  }

  private async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
    if (this.failure !== null) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
  }

  private takeHeld(): StepRecordWrite[] {
    const now = performance.now();
    const held = this.held.map(({ record, endedAt }) => ({ ...record, ended_ago_ms: now - endedAt }));
    this.held = [];
    return held;
  }
}

function toWrite(start: StepStart, end: StepEnd | null, durationMs: number, endedAgoMs: number): StepRecordWrite {
  return {
    run_id: start.runId,
    step_key: start.key,
    step_id: start.stepId,
    step_type: start.type,
    iteration: start.iteration,
    status: end?.status ?? 'running',
    inputs: start.inputs ?? null,
    output: end?.output ?? null,
    error: end?.error ?? null,
    error_code: end?.errorCode ?? null,
    tokens: end?.tokens ?? 0,
    model_calls: end?.modelCalls ?? 0,
    model_attempts: end?.modelAttempts ?? null,
    cost_picos: end?.cost?.picoUsd ?? null,
    price_version: end?.cost?.priceVersion ?? null,
    credentials: end?.cost?.credentials ?? null,
    ended: end !== null,
    duration_ms: durationMs,
    ended_ago_ms: endedAgoMs,
  };
}
