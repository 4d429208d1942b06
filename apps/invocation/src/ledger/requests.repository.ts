import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TERMINAL_RUN_STATUSES, type LedgerRecord, type ListRequestsRequest } from '@waggle/contracts';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { recordOfRow } from './ledger-records';
import { RequestRecordEntity } from './request-record.entity';

/** The columns a record writes, and their types for `jsonb_to_recordset`. */
const COLUMNS: ReadonlyArray<readonly [column: string, type: string, value: (record: LedgerRecord) => unknown]> = [
  ['id', 'text', (record) => record.request_id],
  ['workspace_id', 'uuid', (record) => record.workspace_id],
  ['request_type', 'text', (record) => record.request_type],
  ['requestable_type', 'text', (record) => record.requestable_type],
  ['requestable_id', 'uuid', (record) => record.requestable_id],
  ['deployment', 'text', (record) => record.deployment],
  ['variant', 'text', (record) => record.variant],
  ['variant_id', 'uuid', (record) => record.variant_id],
  ['version_id', 'uuid', (record) => record.version_id],
  ['version', 'integer', (record) => record.version],
  ['model', 'text', (record) => record.model],
  ['status', 'text', (record) => record.status],
  ['message', 'text', (record) => record.message],
  ['metadata', 'jsonb', (record) => record.metadata ?? {}],
  ['user_label', 'text', (record) => record.user],
  ['generated_at', 'timestamptz', (record) => record.generated_at],
  ['started_at', 'timestamptz', (record) => record.started_at],
  ['ended_at', 'timestamptz', (record) => record.ended_at],
  ['duration_ms', 'integer', (record) => record.duration_ms],
  ['usage', 'jsonb', (record) => record.usage],
  ['data', 'jsonb', (record) => record.data],
  ['trace_id', 'text', (record) => record.trace_id ?? null],
];

/** Columns a later state never replaces once set: the run's trace is the request that started it, not a later cancel's. */
const FIRST_KEPT: ReadonlySet<string> = new Set(['trace_id']);

const TABLE = `"${SCHEMA}"."requests"`;
const TERMINAL = TERMINAL_RUN_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * One statement for a whole batch: the records travel as one JSON parameter and become rows
 * in the database, so a batch of any size is one round trip. A record already in a terminal
 * state is never overwritten (decisions: nothing leaves a terminal state), which also makes
 * batches that arrive out of order across replicas harmless.
 */
const UPSERT = `
INSERT INTO ${TABLE} (${COLUMNS.map(([column]) => `"${column}"`).join(', ')})
SELECT ${COLUMNS.map(([column]) => `"${column}"`).join(', ')}
FROM jsonb_to_recordset($1::jsonb) AS record(${COLUMNS.map(([column, type]) => `"${column}" ${type}`).join(', ')})
ON CONFLICT ("id") DO UPDATE SET ${COLUMNS.slice(1)
  .map(([column]) =>
    FIRST_KEPT.has(column) ? `"${column}" = COALESCE(${TABLE}."${column}", EXCLUDED."${column}")` : `"${column}" = EXCLUDED."${column}"`,
  )
  .join(', ')}
WHERE ${TABLE}."status" NOT IN (${TERMINAL})`;

/**
 * PostgreSQL text and jsonb cannot hold U+0000; a model's answer may contain it. It is
 * stored as U+FFFD rather than failing the batch forever.
 */
function storable(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

/** The values a query-string metadata value may stand for: the string itself, or what it reads as. */
export function metadataCandidates(raw: string): Array<string | number | boolean> {
  const candidates: Array<string | number | boolean> = [raw];
  if (raw === 'true' || raw === 'false') candidates.push(raw === 'true');
  else if (raw.trim() !== '' && Number.isFinite(Number(raw))) candidates.push(Number(raw));
  return candidates;
}

@Injectable()
export class RequestsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes the latest state of each record, in publishing order; the first terminal state of a run is its last. */
  async upsert(records: LedgerRecord[]): Promise<void> {
    const latest = new Map<string, LedgerRecord>();
    for (const record of records) {
      const kept = latest.get(record.request_id);
      if (kept && TERMINAL_RUN_STATUSES.includes(kept.status)) continue;
      // As the statement keeps a stored trace id, a batch keeps its earliest state's.
      latest.set(record.request_id, kept?.trace_id ? { ...record, trace_id: kept.trace_id } : record);
    }
    if (latest.size === 0) return;
    const rows = [...latest.values()].map((record) => Object.fromEntries(COLUMNS.map(([column, , value]) => [column, value(record)])));
    await this.dataSource.query(UPSERT, [JSON.stringify(rows, storable)]);
  }

  async findById(requestId: string): Promise<LedgerRecord | null> {
    const row = await this.dataSource.getRepository(RequestRecordEntity).findOneBy({ id: requestId });
    return row && recordOfRow(row);
  }

  /** A workspace's requests, newest first, by one metadata pair, user label and time range. */
  async list(query: ListRequestsRequest): Promise<LedgerRecord[]> {
    const builder = this.dataSource
      .getRepository(RequestRecordEntity)
      .createQueryBuilder('request')
      .where('request.workspace_id = :workspace', { workspace: query.workspace_id })
      .orderBy('request.generated_at', 'DESC')
      .limit(query.limit ?? 100);
    if (query.user !== undefined) builder.andWhere('request.user_label = :user', { user: query.user });
    if (query.from) builder.andWhere('request.generated_at >= :from', { from: query.from });
    if (query.to) builder.andWhere('request.generated_at < :to', { to: query.to });
    if (query.metadata_key !== undefined) {
      const key = query.metadata_key;
      if (query.metadata_value === undefined) builder.andWhere('request.metadata ? :key', { key });
      else {
        const matches = metadataCandidates(query.metadata_value).map((value) => JSON.stringify({ [key]: value }));
        builder.andWhere(
          `(${matches.map((_, index) => `request.metadata @> :match${index}::jsonb`).join(' OR ')})`,
          Object.fromEntries(matches.map((match, index) => [`match${index}`, match])),
        );
      }
    }
    return (await builder.getMany()).map(recordOfRow);
  }
}
