import { Logger } from '@nestjs/common';
import { streamErrorEvent, WaggleException } from '@waggle/errors';
import type Redis from 'ioredis';
import { Observable } from 'rxjs';

/** One key (a Redis stream) per run whose events are kept: `waggle:run-events:<request_id>`. */
export const RUN_EVENTS_KEY_PREFIX = 'waggle:run-events:';
/** decisions (D40): a run's events are kept until 1 h after it ends. */
export const RUN_EVENTS_KEPT_AFTER_END_MS = 60 * 60_000;
/**
 * While the run goes on, every write sets the key to expire this long after it: a run whose
 * service died before its end leaves events that go at most this long after the last one.
 */
export const RUN_EVENTS_RUNNING_TTL_MS = 2 * 60 * 60_000;

/**
 * The stream's entry ids are the events' sequence numbers (`<seq>-0`, from 1), so "the events
 * after seq N" is an XREAD from `N-0`. The first entry, `0-1`, names the run's workspace; the
 * last one, `<n+1>-0`, marks the end of the run.
 */
const HEAD_ID = '0-1';
const entryId = (seq: number): string => `${seq}-0`;
/** Where an XREAD for the entries after `seq` starts: past the head for 0. */
const readFrom = (seq: number): string => (seq === 0 ? HEAD_ID : entryId(seq));
const seqOf = (id: string): number => Number(id.slice(0, id.indexOf('-')));
/** Entries read by one command: a replay is paged, never held in memory whole. */
const PAGE = 256;

/** One kept entry: an event (as the service sent it) with its sequence number, or the end of the run. */
export type RunLogEntry = { seq: number; event: unknown } | { seq: number; end: true };

/** What the reader yields while the run goes on with nothing new for `idleMs` (a keep-alive is due). */
export const RUN_LOG_IDLE = Symbol('idle');

/** A kept run: its workspace, and its end's sequence number once it has ended. */
export interface RunLogHead {
  workspaceId: string;
  endSeq: number | null;
}

type XEntry = [id: string, fields: string[]];
type XReadReply = Array<[key: string, entries: XEntry[]]> | null;

function fieldOf(fields: string[], name: string): string | undefined {
  for (let index = 0; index < fields.length - 1; index += 2) if (fields[index] === name) return fields[index + 1];
  return undefined;
}

/** A page's entries, in order (entries of another shape are skipped). */
function* entriesOf(page: XEntry[]): Generator<RunLogEntry> {
  for (const raw of page) {
    const entry = toEntry(raw);
    if (entry) yield entry;
  }
}

function toEntry([id, fields]: XEntry): RunLogEntry | undefined {
  const seq = seqOf(id);
  const event = fieldOf(fields, 'event');
  if (event !== undefined) return { seq, event: JSON.parse(event) as unknown };
  return fieldOf(fields, 'end') === undefined ? undefined : { seq, end: true };
}

/**
 * The kept events of runs that outlive their client (background streams): written by the
 * service that runs the run as the events pass, read by the gateway to replay them after a
 * sequence number and follow the run live to its end (decisions D40, D47). One Redis stream
 * per run; see `docs/decisions.md` D47 for why Redis Streams rather than JetStream.
 */
export class RunEventLog {
  private readonly logger = new Logger(RunEventLog.name);

  constructor(
    private readonly redis: Redis,
    private readonly ttl = { keptAfterEndMs: RUN_EVENTS_KEPT_AFTER_END_MS, runningMs: RUN_EVENTS_RUNNING_TTL_MS },
  ) {}

  static keyOf(requestId: string): string {
    return `${RUN_EVENTS_KEY_PREFIX}${requestId}`;
  }

  /**
   * The run's events, unchanged and never held up, each also appended to the run's key (see
   * RunEventWriter), kept `keptAfterEndMs` after the run ends (by default the hour a background
   * stream's are). A run refused before its first event keeps nothing.
   */
  record<T>(requestId: string, workspaceId: string, events: Observable<T>, keptAfterEndMs = this.ttl.keptAfterEndMs): Observable<T> {
    return new Observable<T>((subscriber) => {
      const ttl = { ...this.ttl, keptAfterEndMs };
      const writer = new RunEventWriter(this.redis, requestId, workspaceId, ttl, this.logger);
      const subscription = events.subscribe({
        next: (event) => {
          writer.append(event);
          subscriber.next(event);
        },
        error: (error: unknown) => {
          writer.fail(error);
          subscriber.error(error);
        },
        complete: () => {
          writer.end();
          subscriber.complete();
        },
      });
      return () => subscription.unsubscribe();
    });
  }

  /**
   * Checks that the run's events are kept for this workspace before they are read. Another
   * workspace's run and an unknown id answer the request lookup's 404 (`lookup` throws it for
   * an id the workspace does not have); this workspace's run without kept events (not a
   * background or idempotent stream, or expired) its own 404; Redis away, 503.
   */
  async keptFor(requestId: string, workspaceId: string, lookup: () => Promise<unknown>): Promise<RunLogHead> {
    let head: RunLogHead | null;
    try {
      head = await this.head(requestId);
    } catch (error) {
      throw new WaggleException('upstream_request_failed', { status: 503, cause: error });
    }
    if (head?.workspaceId === workspaceId) return head;
    if (head) throw new WaggleException('not_found', { detail: 'request_not_found' });
    await lookup();
    throw new WaggleException('not_found', { detail: 'run_events_not_kept' });
  }

  /** The run's workspace and end, in one round trip; null when no events of it are kept. */
  async head(requestId: string): Promise<RunLogHead | null> {
    const key = RunEventLog.keyOf(requestId);
    const results = await this.redis.pipeline().xrange(key, HEAD_ID, HEAD_ID).xrevrange(key, '+', '-', 'COUNT', 1).exec();
    if (!results) return null;
    for (const [error] of results) if (error) throw error;
    const [head] = results[0][1] as XEntry[];
    const workspaceId = head && fieldOf(head[1], 'workspace_id');
    if (!workspaceId) return null;
    const [last] = results[1][1] as XEntry[];
    const lastEntry = last && toEntry(last);
    return { workspaceId, endSeq: lastEntry && 'end' in lastEntry ? lastEntry.seq : null };
  }

  /**
   * The entries after `afterSeq`, in order: those kept already (read on the shared connection),
   * then, while the run goes on, each new one as it is appended (XREAD BLOCK on a connection of
   * the reader's own, closed when it stops), up to and including the end. Yields RUN_LOG_IDLE
   * after `idleMs` without an entry. Stops, without an end, when `signal` aborts or the key is
   * gone (expired, or dropped by a writer that lost Redis).
   */
  async *entries(
    requestId: string,
    afterSeq: number,
    options: { signal: AbortSignal; idleMs: number },
  ): AsyncGenerator<RunLogEntry | typeof RUN_LOG_IDLE> {
    const key = RunEventLog.keyOf(requestId);
    let last = afterSeq;
    // Kept already: no connection of its own is needed for a run that has ended.
    for (;;) {
      const page = ((await this.redis.xread('COUNT', PAGE, 'STREAMS', key, readFrom(last))) as XReadReply)?.[0]?.[1] ?? [];
      for (const entry of entriesOf(page)) {
        yield entry;
        if ('end' in entry) return;
        last = entry.seq;
      }
      if (options.signal.aborted) return;
      if (page.length < PAGE) break;
    }
    // A reader who asked past the end of a run that has ended (it saw every event) ends now, not after a wait.
    const ended = (await this.head(requestId))?.endSeq ?? null;
    if (ended !== null && ended <= last) {
      yield { seq: ended, end: true };
      return;
    }
    const follower = this.redis.duplicate({ lazyConnect: true, enableOfflineQueue: true, connectionName: 'waggle-run-events-reader' });
    const stop = () => follower.disconnect();
    options.signal.addEventListener('abort', stop, { once: true });
    try {
      await follower.connect();
      while (!options.signal.aborted) {
        const reply = (await follower.xread('COUNT', PAGE, 'BLOCK', options.idleMs, 'STREAMS', key, readFrom(last))) as XReadReply;
        const page = reply?.[0]?.[1] ?? [];
        for (const entry of entriesOf(page)) {
          yield entry;
          if ('end' in entry) return;
          last = entry.seq;
        }
        if (page.length > 0) continue;
        const head = await this.head(requestId);
        if (!head) return;
        // The end written while this reader connected (or past which it asked).
        if (head.endSeq !== null && head.endSeq <= last) {
          yield { seq: head.endSeq, end: true };
          return;
        }
        yield RUN_LOG_IDLE;
      }
    } catch (error) {
      if (!options.signal.aborted) throw error;
    } finally {
      options.signal.removeEventListener('abort', stop);
      follower.disconnect();
    }
  }
}

type PendingWrite = { id: string; fields: string[] } | 'discard';

/**
 * Appends one run's events to its key. `append` never waits: events queue in memory and go in
 * pipelines, one at a time per run (so in order), each with the key's expiry (the running TTL,
 * or exactly RUN_EVENTS_KEPT_AFTER_END_MS once the end is written). The first write, started
 * when the run starts, names the workspace, so a resume that comes at once finds the run.
 *
 * Redis failing never fails the run: the first failed write stops the recording and drops
 * the key (when Redis still answers), so a resume is told plainly that the events are not kept
 * (404) instead of replaying a stream with a hole; a key Redis cannot drop expires by itself.
 */
class RunEventWriter {
  private readonly key: string;
  private seq = 0;
  private pending: PendingWrite[] = [];
  private flushing = false;
  private stopped = false;

  constructor(
    private readonly redis: Redis,
    private readonly requestId: string,
    workspaceId: string,
    private readonly ttl: { keptAfterEndMs: number; runningMs: number },
    private readonly logger: Logger,
  ) {
    this.key = RunEventLog.keyOf(requestId);
    this.push({ id: HEAD_ID, fields: ['workspace_id', workspaceId] });
  }

  append(event: unknown): void {
    if (this.stopped) return;
    let json: string;
    try {
      json = JSON.stringify(event);
    } catch (error) {
      return this.lost(error);
    }
    this.seq += 1;
    this.push({ id: entryId(this.seq), fields: ['event', json] });
  }

  end(): void {
    if (this.stopped) return;
    this.push({ id: entryId(this.seq + 1), fields: ['end', '1'] });
    this.stopped = true;
  }

  /**
   * The run's stream failed. Before any event the gateway answers it as a JSON error and the
   * run never streamed: nothing is kept. After events the client got one `error` event (the
   * gateway's, from the same failure): so does the log, then the end.
   */
  fail(error: unknown): void {
    if (this.stopped) return;
    if (this.seq === 0) {
      this.push('discard');
      this.stopped = true;
      return;
    }
    this.append(streamErrorEvent(this.requestId, error instanceof WaggleException ? error : new WaggleException('internal_server_error')));
    this.end();
  }

  private push(write: PendingWrite): void {
    this.pending.push(write);
    if (this.flushing) return;
    this.flushing = true;
    // Events produced together (a burst of fragments) go in one pipeline.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      const pipeline = this.redis.pipeline();
      let ended = false;
      for (const write of batch) {
        if (write === 'discard') pipeline.del(this.key);
        else {
          pipeline.xadd(this.key, write.id, ...write.fields);
          ended ||= write.fields[0] === 'end';
        }
      }
      if (batch.at(-1) !== 'discard') pipeline.pexpire(this.key, ended ? this.ttl.keptAfterEndMs : this.ttl.runningMs);
      try {
        const results = (await pipeline.exec()) ?? [];
        const failed = results.find(([error]) => error)?.[0];
        if (failed) throw failed;
      } catch (error) {
        this.flushing = false;
        return this.lost(error);
      }
    }
    this.flushing = false;
  }

  private lost(error: unknown): void {
    this.stopped = true;
    this.pending = [];
    this.logger.warn({ err: error, request_id: this.requestId }, "a run's events could not be kept; the run goes on, not resumable");
    this.redis.del(this.key).catch(() => undefined);
  }
}
