import type { LedgerRecord, RunCostFields, RunStatus, UsageObject } from '@waggle/contracts';
import type { LedgerPublisher } from './ledger-publisher';

/** What a run's record says when it starts; the rest is filled in at its end. */
export type StartedRun = Omit<
  LedgerRecord,
  'status' | 'generated_at' | 'started_at' | 'ended_at' | 'duration_ms' | 'usage' | 'data' | keyof RunCostFields
>;

/**
 * One run's ledger record from start to end: published `running` when the run starts (before
 * the provider is called), then once more in its terminal state.
 */
export class LedgerRun {
  private record: LedgerRecord;

  constructor(
    private readonly ledger: LedgerPublisher,
    started: StartedRun,
  ) {
    const now = new Date().toISOString();
    this.record = {
      ...started,
      status: 'running',
      generated_at: now,
      started_at: now,
      ended_at: null,
      duration_ms: null,
      usage: null,
      data: null,
    };
    ledger.save(this.record);
  }

  /**
   * The terminal record. `model` is the model that answered, when a fallback did (D41): the
   * record starts with the run's own model. `cost` is what the run's model calls cost (RunCost).
   */
  finish(
    status: RunStatus,
    durationMs: number,
    usage: UsageObject | null,
    data: Record<string, unknown> | null,
    model?: string,
    cost?: RunCostFields,
  ): void {
    this.record = {
      ...this.record,
      ...(model !== undefined && { model }),
      ...cost,
      status,
      ended_at: new Date().toISOString(),
      duration_ms: durationMs,
      usage: usage as Record<string, unknown> | null,
      data,
    };
    this.ledger.save(this.record);
  }
}
