import type { LedgerRecord, RequestListItem, RequestLookup, RequestRecordView } from '@waggle/contracts';
import type { RowOf } from '@waggle/database';
import type { RequestRecordEntity } from './entities/request-record.entity';

/** A stored row in the published record's shape. */
export function recordOfRow(row: RowOf<RequestRecordEntity>): LedgerRecord {
  return {
    request_id: row.id,
    workspace_id: row.workspace_id,
    request_type: row.request_type,
    requestable_type: row.requestable_type,
    requestable_id: row.requestable_id,
    deployment: row.deployment,
    variant: row.variant,
    variant_id: row.variant_id,
    version_id: row.version_id,
    version: row.version,
    model: row.model,
    status: row.status,
    message: row.message,
    metadata: row.metadata,
    user: row.user_label,
    generated_at: row.generated_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    ended_at: row.ended_at?.toISOString() ?? null,
    duration_ms: row.duration_ms,
    usage: row.usage,
    data: row.data,
    trace_id: row.trace_id,
    surface: row.surface,
    // Raw SQL reads bigint as text.
    cost_micros: row.cost_micros === null ? null : Number(row.cost_micros),
    price_version: row.price_version,
    api_key_id: row.api_key_id,
    credentials: row.credentials,
    label: row.label,
    split: row.split,
  };
}

/** decisions: the answer of `GET /v1/public/requests/{id}`. */
export function toRequestLookup(record: LedgerRecord): RequestLookup {
  return {
    request_id: record.request_id,
    status: record.status,
    request_type: record.request_type,
    requestable_type: record.requestable_type,
    requestable_id: record.requestable_id,
    message: record.message,
    metadata: record.metadata,
    generated_at: record.generated_at,
    started_at: record.started_at,
    ended_at: record.ended_at,
    data: record.data,
    trace_id: record.trace_id ?? null,
    surface: record.surface ?? null,
    cost_micros: record.cost_micros ?? null,
    version: record.version ?? null,
    label: record.label ?? null,
  };
}

/** The lookup with the price version, as the invocation service answers it (the CLI shows both). */
export function toRequestRecordView(record: LedgerRecord): RequestRecordView {
  return { ...toRequestLookup(record), price_version: record.price_version ?? null };
}

export function toRequestListItem(record: LedgerRecord): RequestListItem {
  return {
    ...toRequestRecordView(record),
    user: record.user,
    credentials: record.credentials ?? null,
    api_key_id: record.api_key_id ?? null,
    model: record.model,
    split: record.split ?? null,
  };
}
