import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { RequestRecordEntity } from './request-record.entity';

export const LEDGER_FLUSH_INTERVAL_MS = 50;
const MAX_BATCH = 500;

/**
 * Writes ledger records off the request path: a run changes its record in memory and
 * the writer upserts the latest state of every changed record in batches, so no database
 * write stands between a client and the provider's first token. Shutdown flushes
 * everything still pending; a failed batch is retried on the next tick.
 */
@Injectable()
export class LedgerWriter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(LedgerWriter.name);
  private readonly dirty = new Map<string, RequestRecordEntity>();
  /** Taken out of `dirty` by the batch being written, until that write commits. */
  private readonly writing = new Map<string, RequestRecordEntity>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(@InjectRepository(RequestRecordEntity) private readonly records: Repository<RequestRecordEntity>) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), LEDGER_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    // Whatever is pending goes out before the connection closes.
    for (let attempt = 0; attempt < 5 && this.dirty.size > 0; attempt += 1) await this.flush();
    if (this.dirty.size > 0) this.logger.error({ pending: this.dirty.size }, 'ledger records could not be written before shutdown');
  }

  /** Records the record's current state (call again after every change). */
  save(record: RequestRecordEntity): void {
    this.dirty.set(record.id, record);
  }

  /**
   * A record whose latest state is not committed yet (waiting, or in the batch being
   * written), so a lookup right after a run still finds it, and whoever must act only on a
   * written result knows to flush and wait.
   */
  pendingRecord(id: string): RequestRecordEntity | undefined {
    return this.dirty.get(id) ?? this.writing.get(id);
  }

  get pending(): number {
    return this.dirty.size;
  }

  flush(): Promise<void> {
    this.flushing ??= this.writeBatch().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async writeBatch(): Promise<void> {
    if (this.dirty.size === 0) return;
    const batch = [...this.dirty.values()].slice(0, MAX_BATCH);
    // Taken out before the write: a change made meanwhile marks the record dirty again.
    for (const record of batch) {
      this.dirty.delete(record.id);
      this.writing.set(record.id, record);
    }
    try {
      // jsonb columns are plain objects; TypeORM's deep-partial type cannot see that.
      await this.records.upsert(batch.map((record) => ({ ...record })) as QueryDeepPartialEntity<RequestRecordEntity>[], ['id']);
    } catch (error) {
      for (const record of batch) if (!this.dirty.has(record.id)) this.dirty.set(record.id, record);
      this.logger.warn({ err: error, records: batch.length }, 'ledger batch failed; retrying');
    } finally {
      for (const record of batch) this.writing.delete(record.id);
    }
  }
}
