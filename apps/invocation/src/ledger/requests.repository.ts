import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { TERMINAL_RUN_STATUSES, type LedgerRecord, type ListRequestsRequest } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { recordOfRow } from './ledger-records';
import { RequestRecordEntity } from './entities/request-record.entity';

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
  ['surface', 'text', (record) => record.surface ?? null],
  ['cost_micros', 'bigint', (record) => record.cost_micros ?? null],
  ['price_version', 'text', (record) => record.price_version ?? null],
  ['api_key_id', 'text', (record) => record.api_key_id ?? null],
  ['credentials', 'text', (record) => record.credentials ?? null],
  ['label', 'text', (record) => record.label ?? null],
  ['split', 'jsonb', (record) => record.split ?? null],
];

/**
 * Columns a later state never replaces once set: the run's trace, surface and API key are the
 * request's that started it, not a later cancel's (nor a background worker's, which has no key).
 */
const FIRST_KEPT: ReadonlySet<string> = new Set(['trace_id', 'surface', 'api_key_id']);

const TABLE = `"${SCHEMA}"."requests"`;
const TERMINAL = TERMINAL_RUN_STATUSES.map((status) => `'${status}'`).join(', ');

const SQL = defineSql(__filename, {
  /**
   * One statement for a whole batch: the records travel as one JSON parameter and become rows
   * in the database, so a batch of any size is one round trip. A record already in a terminal
   * state is never overwritten (decisions: nothing leaves a terminal state), which also makes
   * batches that arrive out of order across replicas harmless.
   */
  upsert: sql(`
    INSERT INTO ${TABLE} (${COLUMNS.map(([column]) => `"${column}"`).join(', ')})
    SELECT ${COLUMNS.map(([column]) => `"${column}"`).join(', ')}
    FROM jsonb_to_recordset($1::jsonb) AS record(${COLUMNS.map(([column, type]) => `"${column}" ${type}`).join(', ')})
    ON CONFLICT ("id") DO UPDATE SET ${COLUMNS.slice(1)
      .map(([column]) =>
        FIRST_KEPT.has(column)
          ? `"${column}" = COALESCE(${TABLE}."${column}", EXCLUDED."${column}")`
          : `"${column}" = EXCLUDED."${column}"`,
      )
      .join(', ')}
    WHERE ${TABLE}."status" NOT IN (${TERMINAL})`),
  byId: sql<RowOf<RequestRecordEntity>>(`SELECT * FROM ${TABLE} WHERE "id" = $1`),
  /**
   * A workspace's requests, newest first. Every filter is a parameter that is null when the
   * query does not set it (PostgreSQL plans each call with its values, so an unset filter costs
   * nothing): the user label, the time range, a metadata key, and a metadata pair as the JSON
   * objects that may stand for it (metadataCandidates), any of which the metadata contains (the
   * GIN index of `metadata` answers `@>`), the state, the artifact, the model that answered and
   * the API key (each with its own workspace index, newest first), the cost range (checked on
   * the rows the other conditions walk, newest first, until the page is full; a run without a
   * cost is outside any range); and the page: the rows after
   * `before`'s in the order (generated_at, then id, so runs recorded in the same microsecond keep
   * their place; an id not of the workspace answers no rows).
   */
  list: sql<RowOf<RequestRecordEntity>>(`
    SELECT * FROM ${TABLE}
    WHERE "workspace_id" = $1
      AND ($2::text IS NULL OR "user_label" = $2::text)
      AND ($3::timestamptz IS NULL OR "generated_at" >= $3::timestamptz)
      AND ($4::timestamptz IS NULL OR "generated_at" < $4::timestamptz)
      AND ($5::text IS NULL OR "metadata" ? $5::text)
      AND ($6::jsonb[] IS NULL OR "metadata" @> ANY ($6::jsonb[]))
      AND ($8::text IS NULL OR "status" = $8::text)
      AND ($9::uuid IS NULL OR "requestable_id" = $9::uuid)
      AND ($11::text IS NULL OR "model" = $11::text)
      AND ($12::text IS NULL OR "api_key_id" = $12::text)
      AND ($13::bigint IS NULL OR "cost_micros" >= $13::bigint)
      AND ($14::bigint IS NULL OR "cost_micros" <= $14::bigint)
      AND ($10::text IS NULL OR ("generated_at", "id") < (
        SELECT "generated_at", "id" FROM ${TABLE} WHERE "id" = $10::text AND "workspace_id" = $1))
    ORDER BY "generated_at" DESC, "id" DESC
    LIMIT $7`),
});

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

/** Every query of the request ledger (`requests`). */
@Injectable()
export class RequestsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

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
    await this.execute(SQL.upsert, [JSON.stringify(rows, storable)]);
  }

  async findById(requestId: string): Promise<LedgerRecord | null> {
    const row = await this.row(SQL.byId, [requestId]);
    return row && recordOfRow(row);
  }

  /** A workspace's requests, newest first, by one metadata pair, user label, time range, state, artifact, model, API key and cost; a page after `before`. */
  async list(query: ListRequestsRequest): Promise<LedgerRecord[]> {
    const key = query.metadata_key;
    const value = key === undefined ? undefined : query.metadata_value;
    const rows = await this.rows(SQL.list, [
      query.workspace_id,
      query.user ?? null,
      query.from || null,
      query.to || null,
      key !== undefined && value === undefined ? key : null,
      key !== undefined && value !== undefined ? metadataCandidates(value).map((candidate) => JSON.stringify({ [key]: candidate })) : null,
      query.limit ?? 100,
      query.status ?? null,
      query.artifact ?? null,
      query.before ?? null,
      query.model ?? null,
      query.api_key ?? null,
      query.min_cost_micros ?? null,
      query.max_cost_micros ?? null,
    ]);
    return rows.map(recordOfRow);
  }
}
