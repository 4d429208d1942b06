import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { LedgerStream, type LedgerRecord } from '@waggle/contracts';
import { NatsRpcClient } from '../nats/nats-rpc.client';
import { DEFAULT_LEDGER_STREAM_SETTINGS, ensureLedgerStream } from './ledger-stream';

export const LEDGER_FLUSH_INTERVAL_MS = 50;
/** A batch's JSON stays well under NATS's default 1 MiB message limit. */
const MAX_BATCH_BYTES = 512 * 1024;

/**
 * Publishes run records to the ledger stream off the request path: a run changes its record
 * here, and every 50 ms the latest state of every changed record leaves in one message (so
 * a run's `running` and finished states usually travel together). A batch counts as written
 * once JetStream has stored it; a failed publish is retried on the next tick, and shutdown
 * flushes what is left before the connection closes.
 */
@Injectable()
export class LedgerPublisher implements OnModuleInit {
  private readonly logger = new Logger(LedgerPublisher.name);
  private readonly encoder = new TextEncoder();
  private readonly dirty = new Map<string, LedgerRecord>();
  /** Taken out of `dirty` by the batch being published, until JetStream acknowledges it. */
  private readonly publishing = new Map<string, LedgerRecord>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private streamReady?: Promise<void>;

  constructor(@Inject(NatsRpcClient) private readonly rpc: NatsRpcClient) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), LEDGER_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Records the record's current state (call again after every change). */
  save(record: LedgerRecord): void {
    this.dirty.set(record.request_id, record);
  }

  /**
   * The latest state of a record not yet stored by JetStream (waiting, or in the batch being
   * published): a lookup right after a run still finds it, and whoever must act only on a
   * stored result knows to flush and wait.
   */
  pendingRecord(requestId: string): LedgerRecord | undefined {
    return this.dirty.get(requestId) ?? this.publishing.get(requestId);
  }

  /**
   * Publishes until the run's record is stored by JetStream (true), or gives up after
   * `attempts` batches (false): whoever announces a result (a callback) waits for this, so a
   * result is never announced that the ledger could still lose.
   */
  async stored(requestId: string, attempts = 20): Promise<boolean> {
    for (let attempt = 0; attempt < attempts && this.pendingRecord(requestId); attempt += 1) await this.flush();
    return !this.pendingRecord(requestId);
  }

  get pending(): number {
    return this.dirty.size + this.publishing.size;
  }

  /**
   * Publishes what is waiting now; resolves once that batch is stored (or its publish failed
   * and it waits for the next try). A batch already under way is finished first, since it
   * may have left before the caller's latest change.
   */
  async flush(): Promise<void> {
    await this.flushing;
    this.flushing ??= this.publishBatch().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Stops the timer and publishes everything still waiting (the platform calls it before NATS closes). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    for (let attempt = 0; attempt < 5 && this.pending > 0; attempt += 1) await this.flush();
    if (this.pending > 0) this.logger.error({ pending: this.pending }, 'ledger records could not be published before shutdown');
  }

  private async publishBatch(): Promise<void> {
    if (this.dirty.size === 0) return;
    const connection = this.rpc.connection();
    if (!connection || connection.isClosed()) return;
    const batch: LedgerRecord[] = [];
    // Each record is serialized once: its JSON both sizes the batch and is the batch's text.
    const json: string[] = [];
    let bytes = 2;
    for (const record of this.dirty.values()) {
      const text = JSON.stringify(record);
      const size = Buffer.byteLength(text) + 1;
      if (batch.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
      batch.push(record);
      json.push(text);
      bytes += size;
    }
    // Taken out before the publish: a change made meanwhile marks the record dirty again.
    for (const record of batch) {
      this.dirty.delete(record.request_id);
      this.publishing.set(record.request_id, record);
    }
    try {
      // Created here too when missing, so records published before the owner ever ran are kept.
      this.streamReady ??= connection
        .jetstreamManager()
        .then((manager) => ensureLedgerStream(manager, DEFAULT_LEDGER_STREAM_SETTINGS, { update: false }))
        .catch((error: unknown) => {
          this.streamReady = undefined;
          throw error;
        });
      await this.streamReady;
      await connection.jetstream().publish(LedgerStream.subject, this.encoder.encode(`[${json.join(',')}]`));
    } catch (error) {
      for (const record of batch) if (!this.dirty.has(record.request_id)) this.dirty.set(record.request_id, record);
      this.logger.warn({ err: error, records: batch.length }, 'ledger batch could not be published; retrying');
    } finally {
      for (const record of batch) {
        if (this.publishing.get(record.request_id) === record) this.publishing.delete(record.request_id);
      }
    }
  }
}
