import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { LedgerStream, type LedgerDeadLetter, type LedgerRecord } from '@waggle/contracts';
import type { ObservableCallback } from '@opentelemetry/api';
import { activeTraceId, waggleMetrics } from '@waggle/telemetry';
import { ErrorCode, headers as natsHeaders, NatsError, type MsgHdrs, type NatsConnection } from 'nats';
import {
  cappedBackoffMs,
  ClaimCheck,
  contained,
  describeFailure,
  isTransientFailure,
  jsonText,
  NatsRpcClient,
  OutageLog,
  requestContext,
  type BackoffSettings,
} from '@waggle/platform';
import { DEFAULT_LEDGER_STREAM_SETTINGS, ensureLedgerStream } from './ledger-stream';

export const LEDGER_FLUSH_INTERVAL_MS = 50;
/** A batch's JSON stays well under NATS's default 1 MiB message limit. */
const MAX_BATCH_BYTES = 512 * 1024;
/** Tries a record that fails by itself gets (each alone in its message) before it is dead-lettered. */
export const LEDGER_PUBLISH_ATTEMPTS = 3;
/** How the timer backs off while the stream cannot be reached: from 100 ms, doubling, at most 5 s. */
const OUTAGE_BACKOFF: BackoffSettings = { baseMs: 100, maxMs: 5_000 };
/** A dead letter carries at most this much of its record's JSON, so it can always be published and stored. */
const DEAD_LETTER_MAX_RECORD_CHARS = 64 * 1024;
/** Dead letters kept while they cannot be published (an outage); past it, the error line is the only copy. */
const MAX_WAITING_DEAD_LETTERS = 100;

export interface LedgerPublisherSettings {
  /** Records kept in memory while the stream cannot take them; past it a new record is dead-lettered. */
  maxPendingRecords: number;
  /** The app publishing, named in its dead letters. */
  publisher: string | null;
}

const DEFAULT_LEDGER_PUBLISHER_SETTINGS: LedgerPublisherSettings = { maxPendingRecords: 10_000, publisher: null };

interface WaitingDeadLetter {
  letter: LedgerDeadLetter;
  /** The record as it was, for `pendingRecord` until the dead letter is stored. */
  record: LedgerRecord;
}

interface Batch {
  records: LedgerRecord[];
  texts: string[];
}

/**
 * Publishes run records to the ledger stream off the request path: a run changes its record
 * here, and every 50 ms the latest state of every changed record leaves in one message (so
 * a run's `running` and finished states usually travel together). A batch counts as written
 * once JetStream has stored it, and shutdown flushes what is left before the connection closes.
 *
 * When publishing fails, it matters why (`isTransientFailure`):
 * - an outage (NATS away, the stream full or not reachable) keeps every record (the latest
 *   state per request id) and retries with capped backoff, logging the outage once per 30 s;
 *   at most `maxPendingRecords` wait, a new record past it is dead-lettered rather than kept;
 * - a batch refused for its content is published again one record per message, and a record
 *   that fails by itself (it cannot be serialized, or JetStream refuses it, e.g. too large) is
 *   dead-lettered after LEDGER_PUBLISH_ATTEMPTS tries while the others go on.
 * A dead letter is one error line naming the record, and a small message on the ledger stream
 * marked with LedgerStream.deadLetterHeader that the owner stores straight into its
 * dead-letter table (listed and replayed with `invocation.dead-letters.*`).
 */
@Injectable()
export class LedgerPublisher implements OnModuleInit {
  /**
   * When each waiting record first waited (request id → ms), oldest first (a Map keeps
   * insertion order): `waggle_ledger_lag_seconds` is the first entry's age. Published records
   * leave it at once; any other way out is pruned when a scrape reads it.
   */
  private readonly waitingSince = new Map<string, number>();
  private readonly observePending: ObservableCallback = (result) => result.observe(this.pending);
  private readonly observeLag: ObservableCallback = (result) => result.observe(this.lagSeconds());
  private readonly logger = new Logger(LedgerPublisher.name);
  private readonly encoder = new TextEncoder();
  private readonly settings: LedgerPublisherSettings;
  private readonly dirty = new Map<string, LedgerRecord>();
  /** Taken out of `dirty` by the batch being published, until JetStream acknowledges it. */
  private readonly publishing = new Map<string, LedgerRecord>();
  /** Records that failed by themselves: how often, each published alone until it goes or is dead-lettered. */
  private readonly failures = new Map<string, number>();
  private readonly deadLetters: WaitingDeadLetter[] = [];
  private readonly outage = new OutageLog(this.logger, 'publishing ledger records');
  private outageRetries = 0;
  /** The timer publishes again no sooner than this (an explicit flush does not wait). */
  private retryAt = 0;
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private streamReady?: Promise<void>;
  /** A record larger than a NATS message (a run's message or answer can be megabytes) travels as a claim. */
  private readonly claims: ClaimCheck;

  constructor(
    private readonly rpc: NatsRpcClient,
    settings: Partial<LedgerPublisherSettings> = {},
  ) {
    this.settings = { ...DEFAULT_LEDGER_PUBLISHER_SETTINGS, ...settings };
    this.claims = new ClaimCheck(() => this.rpc.connection(), 'ledger');
  }

  onModuleInit(): void {
    this.timer = setInterval(
      contained('the ledger publisher', () => (Date.now() >= this.retryAt ? this.flush() : undefined)),
      LEDGER_FLUSH_INTERVAL_MS,
    );
    this.timer.unref();
    const { ledgerPending, ledgerLag } = waggleMetrics();
    ledgerPending.addCallback(this.observePending);
    ledgerLag.addCallback(this.observeLag);
  }

  /** How long the oldest record still waiting has waited (0 when none waits). */
  lagSeconds(now = Date.now()): number {
    for (const [id, since] of this.waitingSince) {
      if (this.pendingRecord(id)) return Math.max(0, (now - since) / 1000);
      this.waitingSince.delete(id);
    }
    return 0;
  }

  /**
   * Records the record's current state (call again after every change). A record without a
   * `trace_id` gets its earlier state's, else the active trace's: runs are recorded inside the
   * client's trace (the NATS hop and BullMQ's job telemetry carry it), so no publisher has to
   * pass it, and the ledger's owner keeps the first one it stored. Outside any trace the
   * record goes as it is. The API key the run was started with (`api_key_id`) is stamped the
   * same way, from the request context the gateway's RPC headers set.
   */
  save(record: LedgerRecord): void {
    const id = record.request_id;
    if (!record.trace_id) {
      const traceId = this.pendingRecord(id)?.trace_id || activeTraceId();
      if (traceId) record = { ...record, trace_id: traceId };
    }
    if (!record.api_key_id) {
      const apiKeyId = this.pendingRecord(id)?.api_key_id || requestContext.get()?.apiKeyId;
      if (apiKeyId) record = { ...record, api_key_id: apiKeyId };
    }
    if (!this.dirty.has(id) && !this.publishing.has(id) && this.pending >= this.settings.maxPendingRecords) {
      this.deadLetter(
        record,
        `${this.pending} ledger records already wait to be published (LEDGER_MAX_PENDING_RECORDS=${this.settings.maxPendingRecords}); the stream has not taken them`,
        0,
      );
      return;
    }
    this.dirty.set(id, record);
    if (!this.waitingSince.has(id)) this.waitingSince.set(id, Date.now());
  }

  /**
   * The latest state of a record not yet stored by JetStream (waiting, in the batch being
   * published, or dead-lettered and waiting as such): a lookup right after a run still finds
   * it, and whoever must act only on a stored result knows to flush and wait.
   */
  pendingRecord(requestId: string): LedgerRecord | undefined {
    return (
      this.dirty.get(requestId) ??
      this.publishing.get(requestId) ??
      this.deadLetters.find((waiting) => waiting.letter.request_id === requestId)?.record
    );
  }

  /**
   * Publishes until the run's record is stored by JetStream, as itself or as a dead letter
   * (true), or gives up after `attempts` batches (false): whoever announces a result (a
   * callback) waits for this, so a result is never announced that the ledger could still lose.
   */
  async stored(requestId: string, attempts = 20): Promise<boolean> {
    for (let attempt = 0; attempt < attempts && this.pendingRecord(requestId); attempt += 1) await this.flush();
    return !this.pendingRecord(requestId);
  }

  get pending(): number {
    return this.dirty.size + this.publishing.size + this.deadLetters.length;
  }

  /**
   * Publishes what is waiting now; resolves once that batch is stored (or its publish failed
   * and it waits for the next try). A batch already under way is finished first, since it
   * may have left before the caller's latest change.
   */
  async flush(): Promise<void> {
    await this.flushing;
    this.flushing ??= this.publishWaiting().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /**
   * Stops the timer and publishes everything still waiting (the platform calls it before NATS
   * closes); what still cannot be published is logged whole, the last copy there is.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const { ledgerPending, ledgerLag } = waggleMetrics();
    ledgerPending.removeCallback(this.observePending);
    ledgerLag.removeCallback(this.observeLag);
    for (let attempt = 0; attempt < 5 && this.pending > 0; attempt += 1) await this.flush();
    if (this.pending === 0) return;
    this.logger.error({ pending: this.pending }, 'ledger records could not be published before shutdown; each is logged below');
    const lost = [...this.dirty.values(), ...this.publishing.values(), ...this.deadLetters.map((waiting) => waiting.record)];
    for (const record of lost)
      this.logger.error(
        { request_id: record.request_id, record: jsonText(record).slice(0, DEAD_LETTER_MAX_RECORD_CHARS) },
        'ledger record dead-lettered at shutdown: this line is its only copy',
      );
  }

  private async publishWaiting(): Promise<void> {
    if (this.dirty.size === 0 && this.deadLetters.length === 0) return;
    const connection = this.rpc.connection();
    if (!connection || connection.isClosed()) return;
    try {
      await this.ensureStream(connection);
      await this.publishDeadLetters();
    } catch (error) {
      this.outageBegins(error);
      return;
    }
    // A record that failed by itself before goes alone, first, so its neighbours never share its fate.
    const suspect = this.takeSuspect();
    if (suspect && !(await this.publishBatch(suspect))) return;
    const batch = this.takeBatch();
    if (batch.records.length > 0) await this.publishBatch(batch);
  }

  /** One message; false when the stream could not be reached (the records wait for the next try). */
  private async publishBatch(batch: Batch): Promise<boolean> {
    for (const record of batch.records) {
      this.dirty.delete(record.request_id);
      this.publishing.set(record.request_id, record);
    }
    try {
      await this.publishBytes(this.encoder.encode(`[${batch.texts.join(',')}]`));
      this.published(batch.records);
      return true;
    } catch (error) {
      if (isTransientFailure(error)) {
        this.putBack(batch.records);
        this.outageBegins(error);
        return false;
      }
      if (batch.records.length > 1) return this.publishOneByOne(batch);
      this.failedByItself(batch.records[0] as LedgerRecord, error);
      return true;
    } finally {
      for (const record of batch.records) {
        if (this.publishing.get(record.request_id) === record) this.publishing.delete(record.request_id);
      }
    }
  }

  /** Created here too when missing, so records published before the owner ever ran are kept. */
  private ensureStream(connection: NatsConnection): Promise<void> {
    this.streamReady ??= connection
      .jetstreamManager()
      .then((manager) => ensureLedgerStream(manager, DEFAULT_LEDGER_STREAM_SETTINGS, { update: false }))
      .catch((error: unknown) => {
        this.streamReady = undefined;
        throw error;
      });
    return this.streamReady;
  }

  /** The first record waiting that failed by itself before, alone (one that cannot be serialized counts a failure here). */
  private takeSuspect(): Batch | undefined {
    for (const id of this.failures.keys()) {
      const suspect = this.dirty.get(id);
      const text = suspect && this.serialized(suspect);
      if (suspect && text !== undefined) return { records: [suspect], texts: [text] };
    }
    return undefined;
  }

  /** The records of the next message, each serialized once: its JSON both sizes the batch and is the batch's text. */
  private takeBatch(): Batch {
    const batch: Batch = { records: [], texts: [] };
    let bytes = 2;
    for (const record of this.dirty.values()) {
      if (this.failures.has(record.request_id)) continue;
      const text = this.serialized(record);
      if (text === undefined) continue;
      const size = Buffer.byteLength(text) + 1;
      if (batch.records.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
      batch.records.push(record);
      batch.texts.push(text);
      bytes += size;
    }
    return batch;
  }

  private serialized(record: LedgerRecord): string | undefined {
    try {
      return JSON.stringify(record);
    } catch (error) {
      this.failedByItself(record, error);
      return undefined;
    }
  }

  /** JetStream refused a batch for its content: each record goes alone, so only the bad one fails. */
  private async publishOneByOne(batch: Batch): Promise<boolean> {
    for (const [index, record] of batch.records.entries()) {
      try {
        await this.publishBytes(this.encoder.encode(`[${batch.texts[index]}]`));
        this.published([record]);
      } catch (error) {
        if (isTransientFailure(error)) {
          this.putBack(batch.records.slice(index));
          this.outageBegins(error);
          return false;
        }
        this.failedByItself(record, error);
      }
    }
    return true;
  }

  private published(records: LedgerRecord[]): void {
    for (const record of records) {
      this.failures.delete(record.request_id);
      // A newer state saved meanwhile waits on (and keeps its first waiting time, an upper bound).
      if (!this.dirty.has(record.request_id)) this.waitingSince.delete(record.request_id);
    }
    this.outageRetries = 0;
    this.retryAt = 0;
    this.outage.recovered({ pending: this.pending });
  }

  /** Back to waiting, unless a newer state of the record was saved meanwhile. */
  private putBack(records: LedgerRecord[]): void {
    for (const record of records) if (!this.dirty.has(record.request_id)) this.dirty.set(record.request_id, record);
  }

  private outageBegins(error: unknown): void {
    this.outageRetries += 1;
    const waitMs = cappedBackoffMs(this.outageRetries, OUTAGE_BACKOFF);
    this.retryAt = Date.now() + waitMs;
    this.outage.failed(error, { pending: this.pending, retry_in_ms: waitMs });
  }

  /** A record that failed by itself: kept for another try alone, or dead-lettered after the last. */
  private failedByItself(record: LedgerRecord, error: unknown): void {
    const id = record.request_id;
    const attempts = (this.failures.get(id) ?? 0) + 1;
    if (attempts < LEDGER_PUBLISH_ATTEMPTS) {
      this.failures.set(id, attempts);
      this.putBack([record]);
      return;
    }
    this.failures.delete(id);
    if (this.dirty.get(id) === record) this.dirty.delete(id);
    this.deadLetter(record, `could not be published after ${attempts} attempts: ${describeFailure(error)}`, attempts);
  }

  /** One error line naming the record, and the dead letter queued for the ledger's owner. */
  private deadLetter(record: LedgerRecord, error: string, attempts: number): void {
    const text = jsonText(record);
    const truncated = text.length > DEAD_LETTER_MAX_RECORD_CHARS;
    const letter: LedgerDeadLetter = {
      request_id: typeof record.request_id === 'string' ? record.request_id : null,
      workspace_id: typeof record.workspace_id === 'string' ? record.workspace_id : null,
      record: truncated ? text.slice(0, DEAD_LETTER_MAX_RECORD_CHARS) : text,
      truncated,
      error,
      attempts,
      publisher: this.settings.publisher,
    };
    const line = { request_id: letter.request_id, workspace_id: letter.workspace_id, attempts, error, record_chars: text.length };
    if (this.deadLetters.length >= MAX_WAITING_DEAD_LETTERS) {
      this.logger.error(
        { ...line, record: letter.record },
        `ledger record dead-lettered; ${MAX_WAITING_DEAD_LETTERS} dead letters already wait to be published, so this line is its only copy`,
      );
      return;
    }
    this.logger.error(line, 'ledger record dead-lettered; sent to the ledger dead-letter table (invocation.dead-letters.list)');
    this.deadLetters.push({ letter, record });
  }

  /** Each waiting dead letter as a message of its own; an outage leaves the rest waiting (it throws). */
  private async publishDeadLetters(): Promise<void> {
    while (this.deadLetters.length > 0) {
      const waiting = this.deadLetters[0] as WaitingDeadLetter;
      const headers = natsHeaders();
      headers.set(LedgerStream.deadLetterHeader, '1');
      try {
        await this.publishBytes(this.encoder.encode(JSON.stringify(waiting.letter)), headers);
      } catch (error) {
        if (isTransientFailure(error)) throw error;
        // Refused although small and plain (a server with a tiny max_payload): the log keeps it.
        this.logger.error(
          { request_id: waiting.letter.request_id, record: waiting.letter.record, err: error },
          'ledger dead letter could not be published; this line is its only copy',
        );
      }
      this.deadLetters.shift();
    }
  }

  /** The one place a message's bytes leave for the ledger stream. */
  private async publishBytes(bytes: Uint8Array, headers?: MsgHdrs): Promise<void> {
    const connection = this.rpc.connection();
    if (!connection || connection.isClosed()) throw NatsError.errorForCode(ErrorCode.ConnectionClosed);
    // A batch larger than a NATS message (a run's message or answer can be megabytes) travels as a claim.
    const wire = await this.claims.outgoing(bytes, headers);
    try {
      await connection.jetstream().publish(LedgerStream.subject, wire.data, { headers: wire.headers });
    } catch (error) {
      const claim = ClaimCheck.claimOf(wire);
      if (claim !== undefined) void this.claims.release(claim).catch(() => undefined);
      throw error;
    }
  }
}
