import type { LedgerRecord, RequestListItem, RequestLookup } from '@waggle/contracts';
import type { RequestRecordEntity } from './request-record.entity';

/** A stored row in the published record's shape. */
export function recordOfRow(row: RequestRecordEntity): LedgerRecord {
  return {
    request_id: row.id,
    workspace_id: row.workspaceId,
    request_type: row.requestType,
    requestable_type: row.requestableType,
    requestable_id: row.requestableId,
    deployment: row.deployment,
    variant: row.variant,
    variant_id: row.variantId,
    version_id: row.versionId,
    version: row.version,
    model: row.model,
    status: row.status,
    message: row.message,
    metadata: row.metadata,
    user: row.userLabel,
    generated_at: row.generatedAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    ended_at: row.endedAt?.toISOString() ?? null,
    duration_ms: row.durationMs,
    usage: row.usage,
    data: row.data,
    trace_id: row.traceId,
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
  };
}

export function toRequestListItem(record: LedgerRecord): RequestListItem {
  return { ...toRequestLookup(record), user: record.user };
}
