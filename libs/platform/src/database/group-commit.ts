export interface GroupCommitOptions<I, O> {
  /** Runs one batch; answers one result per item, in order (an Error fails that item alone). */
  run(items: I[]): Promise<Array<O | Error>>;
  /** Items with the same key never share a batch (a later one waits for the next). */
  keyOf(item: I): string;
  maxBatch: number;
  /** Batches running at once; more items queue up and go out together when one finishes. */
  maxInFlight: number;
}

interface Pending<I, O> {
  item: I;
  resolve(result: O): void;
  reject(error: unknown): void;
}

/**
 * Turns many concurrent single-row statements into few multi-row ones. Nothing waits for
 * a timer: an item goes out at once when a batch slot is free, and items that arrive while
 * every slot is busy leave together in the next batch. Under load, batches grow and the
 * database commits (and fsyncs) once per batch instead of once per callback; when idle,
 * each item is its own batch and pays no added latency. Every caller still waits for its
 * own row to be committed, so nothing is acknowledged before it is durable.
 */
export class GroupCommit<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private inFlight = 0;

  constructor(private readonly options: GroupCommitOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.takeBatch();
      this.inFlight += 1;
      void this.execute(batch).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  private takeBatch(): Array<Pending<I, O>> {
    const batch: Array<Pending<I, O>> = [];
    const keys = new Set<string>();
    const later: Array<Pending<I, O>> = [];
    for (const pending of this.queue) {
      const key = this.options.keyOf(pending.item);
      if (batch.length >= this.options.maxBatch || keys.has(key)) later.push(pending);
      else {
        keys.add(key);
        batch.push(pending);
      }
    }
    this.queue = later;
    return batch;
  }

  private async execute(batch: Array<Pending<I, O>>): Promise<void> {
    let results: Array<O | Error>;
    try {
      results = await this.options.run(batch.map((pending) => pending.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
    } catch (error) {
      // One bad row (or a deadlock) must not fail its neighbours: each goes again on its own.
      if (batch.length > 1) {
        await Promise.all(batch.map((pending) => this.execute([pending])));
        return;
      }
      results = [error instanceof Error ? error : new Error(String(error))];
    }
    batch.forEach((pending, index) => {
      const result = results[index] as O | Error;
      if (result instanceof Error) pending.reject(result);
      else pending.resolve(result);
    });
  }
}
