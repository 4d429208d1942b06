import { Injectable } from '@nestjs/common';
import {
  MAX_SPEND_RANGE_DAYS,
  MAX_USAGE_SERIES_BUCKETS,
  MAX_USAGE_SERIES_GROUPS,
  type SpendFilter,
  type SpendView,
  type UsageSeriesBucket,
  type UsageSeriesFilter,
  type UsageSeriesView,
  type UsageSums,
} from '@waggle/contracts';
import { invalidGovernanceField } from '../governance-projection/governance-checks';
import { SpendRepository } from './spend.repository';

const DAY_MS = 24 * 3600 * 1000;

/** A `YYYY-MM-DD` as the UTC midnight starting it, or a 422 when no such day exists (2026-02-30). */
function utcDay(field: 'from' | 'to', value: string): Date {
  const day = new Date(`${value}T00:00:00.000Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value)
    throw invalidGovernanceField(field, { detail: 'spend_date_invalid', params: { field, value } });
  return day;
}

/** The default range: the current UTC month, first to last day. */
export function currentMonth(now: Date): { from: string; to: string } {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

const BUCKET_MS: Record<UsageSeriesBucket, number> = { hour: 3600 * 1000, day: DAY_MS };
const NO_RUNS: UsageSums = {
  requests: 0,
  failed: 0,
  queued: 0,
  running: 0,
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  cost_micros: 0,
  p95_latency_ms: null,
};

/**
 * A usage series' range: `from` taken down to its UTC bucket's start, `to` excluded (defaults:
 * the 24 hours up to now, by hour); a 422 when `to` is not after `from` or the range spans more
 * than MAX_USAGE_SERIES_BUCKETS buckets.
 */
export function seriesRange(filter: UsageSeriesFilter, now: Date): { from: Date; to: Date; bucket: UsageSeriesBucket } {
  const bucket = filter.bucket ?? 'hour';
  const size = BUCKET_MS[bucket];
  const to = filter.to === undefined ? now : new Date(filter.to);
  const given = filter.from === undefined ? new Date(to.getTime() - DAY_MS) : new Date(filter.from);
  // Both bucket sizes divide a UTC day, and the epoch starts one: flooring to the size is the UTC hour or day.
  const from = new Date(Math.floor(given.getTime() / size) * size);
  if (!(to > given) || Math.ceil((to.getTime() - from.getTime()) / size) > MAX_USAGE_SERIES_BUCKETS)
    throw invalidGovernanceField('from', { detail: 'usage_series_range_invalid', params: { max: MAX_USAGE_SERIES_BUCKETS, bucket } });
  return { from, to, bucket };
}

/** Spend of a workspace from the request ledger, per day, model, API key or end user. */
@Injectable()
export class SpendService {
  constructor(private readonly spend: SpendRepository) {}

  async read(workspaceId: string, filter: SpendFilter, now: Date = new Date()): Promise<SpendView> {
    const month = currentMonth(now);
    const from = filter.from ?? month.from;
    const to = filter.to ?? month.to;
    const start = utcDay('from', from);
    const end = new Date(utcDay('to', to).getTime() + DAY_MS);
    if (end <= start || end.getTime() - start.getTime() > MAX_SPEND_RANGE_DAYS * DAY_MS)
      throw invalidGovernanceField('from', { detail: 'spend_range_invalid', params: { max: MAX_SPEND_RANGE_DAYS } });
    const groupBy = filter.group_by ?? 'day';
    const groups = await this.spend.grouped(workspaceId, groupBy, start, end);
    return {
      group_by: groupBy,
      from,
      to,
      total_cost_micros: groups.reduce((sum, group) => sum + group.cost_micros, 0),
      total_runs: groups.reduce((sum, group) => sum + group.runs, 0),
      groups,
    };
  }

  /** The request ledger over time: per UTC hour or day, per model or artifact, with the range's totals. */
  async series(workspaceId: string, filter: UsageSeriesFilter, now: Date = new Date()): Promise<UsageSeriesView> {
    const range = seriesRange(filter, now);
    const groupBy = filter.group_by ?? null;
    const { points, totals } = await this.spend.series(workspaceId, { ...range, groupBy, maxGroups: MAX_USAGE_SERIES_GROUPS });
    return {
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      bucket: range.bucket,
      group_by: groupBy,
      points: points.map((point) => ({ ...point, bucket: point.bucket.toISOString() })),
      totals: totals ?? NO_RUNS,
    };
  }
}
