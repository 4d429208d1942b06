/**
 * The Overview screen's pure logic: its time range and grouping kept in the URL (read back
 * leniently), the query of `GET /v1/private/usage/series`, and the API's sparse points turned into
 * one row per bucket (empty buckets as zeros) for the charts and their tables.
 */
export const OVERVIEW_RANGES = ['24h', '7d', '30d'] as const;
export type OverviewRange = (typeof OVERVIEW_RANGES)[number];
export const OVERVIEW_GROUPS = ['model', 'artifact'] as const;
export type OverviewGroup = (typeof OVERVIEW_GROUPS)[number];

/** Absent: the defaults (the last 24 hours, by model), so a plain link to the screen needs no params. */
export interface OverviewSearch {
  range?: OverviewRange;
  group?: OverviewGroup;
}

export const RANGE_LABELS: Record<OverviewRange, string> = { '24h': 'Last 24 hours', '7d': 'Last 7 days', '30d': 'Last 30 days' };

const HOUR_MS = 3600_000;
const RANGES: Record<OverviewRange, { ms: number; bucket: 'hour' | 'day' }> = {
  '24h': { ms: 24 * HOUR_MS, bucket: 'hour' },
  '7d': { ms: 7 * 24 * HOUR_MS, bucket: 'hour' },
  '30d': { ms: 30 * 24 * HOUR_MS, bucket: 'day' },
};
const BUCKET_MS = { hour: HOUR_MS, day: 24 * HOUR_MS } as const;

/** The router's validateSearch: an unknown range or group is dropped (the default), never an error page. */
export function parseOverviewSearch(search: Record<string, unknown>): OverviewSearch {
  const parsed: OverviewSearch = {};
  if ((OVERVIEW_RANGES as readonly unknown[]).includes(search.range)) parsed.range = search.range as OverviewRange;
  if ((OVERVIEW_GROUPS as readonly unknown[]).includes(search.group)) parsed.group = search.group as OverviewGroup;
  return parsed;
}

/** The series route's path for a range ending now, optionally grouped. */
export function seriesPath(range: OverviewRange, now: Date, group?: OverviewGroup): string {
  const { ms, bucket } = RANGES[range];
  const query = new URLSearchParams({ from: new Date(now.getTime() - ms).toISOString(), to: now.toISOString(), bucket });
  if (group !== undefined) query.set('group_by', group);
  return `/v1/private/usage/series?${query.toString()}`;
}

export interface UsageSums {
  requests: number;
  failed: number;
  queued: number;
  running: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_micros: number;
  p95_latency_ms: number | null;
}

export interface UsagePoint extends UsageSums {
  bucket: string;
  key: string | null;
  other: boolean;
}

export interface UsageSeries {
  from: string;
  to: string;
  bucket: 'hour' | 'day';
  group_by: OverviewGroup | null;
  points: UsagePoint[];
  totals: UsageSums;
}

/** Every bucket start of the answer's range, in order (the API answers only buckets with runs). */
export function bucketStarts(series: Pick<UsageSeries, 'from' | 'to' | 'bucket'>): string[] {
  const size = BUCKET_MS[series.bucket];
  const starts: string[] = [];
  for (let time = Date.parse(series.from); time < Date.parse(series.to); time += size) starts.push(new Date(time).toISOString());
  return starts;
}

/** A bucket's label: the UTC hour or day it starts. */
export function bucketLabel(bucket: string, size: 'hour' | 'day'): string {
  return size === 'day' ? bucket.slice(0, 10) : `${bucket.slice(5, 10)} ${bucket.slice(11, 16)}`;
}

/** The name a group is shown under. */
export function groupName(point: Pick<UsagePoint, 'key' | 'other'>): string {
  if (point.other) return 'Other';
  return point.key ?? '(none)';
}

export interface TotalsRow extends UsageSums {
  bucket: string;
  label: string;
  /** Failed runs per 100 runs; 0 for a bucket without runs. */
  error_rate: number;
  cost_usd: number;
}

/** One row per bucket of an ungrouped series, empty buckets as zeros (p95 null). */
export function totalsRows(series: UsageSeries): TotalsRow[] {
  const byBucket = new Map(series.points.map((point) => [point.bucket, point]));
  return bucketStarts(series).map((bucket) => {
    const point = byBucket.get(bucket);
    const sums: UsageSums = point ?? {
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
    return {
      ...sums,
      bucket,
      label: bucketLabel(bucket, series.bucket),
      error_rate: errorRate(sums),
      cost_usd: sums.cost_micros / 1_000_000,
    };
  });
}

/** Failed runs per 100 runs, to one decimal. */
export function errorRate(sums: Pick<UsageSums, 'requests' | 'failed'>): number {
  return sums.requests === 0 ? 0 : Math.round((sums.failed / sums.requests) * 1000) / 10;
}

export type GroupedMetric = 'requests' | 'total_tokens' | 'cost_micros';

/**
 * A grouped series as chart rows: one per bucket with the bucket's label and each group's value of
 * the metric (0 where the group had no runs), and the groups in the order the API ranked them.
 */
export function groupedRows(
  series: UsageSeries,
  metric: GroupedMetric,
): { groups: string[]; rows: Array<Record<string, string | number>> } {
  const groups: string[] = [];
  for (const point of series.points) if (!groups.includes(groupName(point))) groups.push(groupName(point));
  groups.sort((a, b) => (a === 'Other' ? 1 : b === 'Other' ? -1 : a.localeCompare(b)));
  const values = new Map<string, number>();
  for (const point of series.points) {
    const value = metric === 'cost_micros' ? point.cost_micros / 1_000_000 : point[metric];
    values.set(`${point.bucket}\u0000${groupName(point)}`, value);
  }
  const rows = bucketStarts(series).map((bucket) => {
    const row: Record<string, string | number> = { label: bucketLabel(bucket, series.bucket) };
    for (const group of groups) row[group] = values.get(`${bucket}\u0000${group}`) ?? 0;
    return row;
  });
  return { groups, rows };
}

/** Each group's sum of the metric over the range, the largest first. */
export function groupTotals(
  series: UsageSeries,
): Array<{ group: string; requests: number; failed: number; total_tokens: number; cost_micros: number }> {
  const totals = new Map<string, { group: string; requests: number; failed: number; total_tokens: number; cost_micros: number }>();
  for (const point of series.points) {
    const name = groupName(point);
    const total = totals.get(name) ?? { group: name, requests: 0, failed: 0, total_tokens: 0, cost_micros: 0 };
    total.requests += point.requests;
    total.failed += point.failed;
    total.total_tokens += point.total_tokens;
    total.cost_micros += point.cost_micros;
    totals.set(name, total);
  }
  return [...totals.values()].sort((a, b) => b.requests - a.requests || a.group.localeCompare(b.group));
}

/**
 * Series colours: Mantine's shade 9 (gray 8), each at least 3:1 against white (WCAG 2.1 non-text
 * contrast) and most at 4.5:1, told apart by hue.
 */
export const SERIES_COLORS = [
  'blue.9',
  'teal.9',
  'grape.9',
  'orange.9',
  'indigo.9',
  'red.9',
  'cyan.9',
  'pink.9',
  'green.9',
  'violet.9',
  'gray.8',
  'lime.9',
] as const;

/** USD from micro-USD, to six decimals (a run of a cheap model costs fractions of a cent). */
export function usd(micros: number): string {
  return `$${(micros / 1_000_000).toFixed(6)}`;
}
