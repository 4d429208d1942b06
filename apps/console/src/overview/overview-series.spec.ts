import {
  bucketStarts,
  errorRate,
  groupedRows,
  groupTotals,
  parseOverviewSearch,
  seriesPath,
  totalsRows,
  type UsagePoint,
  type UsageSeries,
} from './overview-series';

const sums = { queued: 0, running: 0, input_tokens: 0, output_tokens: 0, p95_latency_ms: null };
const point = (bucket: string, key: string | null, requests: number, failed: number, cost: number, other = false): UsagePoint => ({
  ...sums,
  bucket,
  key,
  other,
  requests,
  failed,
  total_tokens: requests * 10,
  cost_micros: cost,
});

describe("the Overview screen's series", () => {
  it('keeps a known range and group in the URL and drops the rest', () => {
    expect(parseOverviewSearch({ range: '7d', group: 'artifact' })).toEqual({ range: '7d', group: 'artifact' });
    expect(parseOverviewSearch({ range: '1y', group: 'user' })).toEqual({});
  });

  it('asks for the range ending now, by hour up to 7 days and by day for 30', () => {
    const now = new Date('2026-11-29T10:30:00.000Z');
    expect(seriesPath('24h', now)).toBe(
      '/v1/private/usage/series?from=2026-11-28T10%3A30%3A00.000Z&to=2026-11-29T10%3A30%3A00.000Z&bucket=hour',
    );
    expect(seriesPath('7d', now, 'model')).toContain(
      'from=2026-11-22T10%3A30%3A00.000Z&to=2026-11-29T10%3A30%3A00.000Z&bucket=hour&group_by=model',
    );
    expect(seriesPath('30d', now, 'artifact')).toContain('bucket=day&group_by=artifact');
  });

  it('fills the buckets without runs with zeros and computes the error rate', () => {
    const series: UsageSeries = {
      from: '2026-11-29T08:00:00.000Z',
      to: '2026-11-29T10:30:00.000Z',
      bucket: 'hour',
      group_by: null,
      points: [point('2026-11-29T09:00:00.000Z', null, 3, 1, 1500)],
      totals: { ...sums, requests: 3, failed: 1, total_tokens: 30, cost_micros: 1500 },
    };
    expect(bucketStarts(series)).toEqual(['2026-11-29T08:00:00.000Z', '2026-11-29T09:00:00.000Z', '2026-11-29T10:00:00.000Z']);
    const rows = totalsRows(series);
    expect(rows.map((row) => [row.label, row.requests, row.failed, row.error_rate, row.cost_usd])).toEqual([
      ['11-29 08:00', 0, 0, 0, 0],
      ['11-29 09:00', 3, 1, 33.3, 0.0015],
      ['11-29 10:00', 0, 0, 0, 0],
    ]);
    expect(errorRate({ requests: 0, failed: 0 })).toBe(0);
  });

  it('turns grouped points into one row per bucket with a column per group, Other last, and totals per group', () => {
    const series: UsageSeries = {
      from: '2026-11-28T00:00:00.000Z',
      to: '2026-11-30T00:00:00.000Z',
      bucket: 'day',
      group_by: 'model',
      points: [
        point('2026-11-28T00:00:00.000Z', 'b-model', 1, 0, 10),
        point('2026-11-28T00:00:00.000Z', null, 2, 2, 0, true),
        point('2026-11-29T00:00:00.000Z', 'a-model', 4, 1, 2_000_000),
        point('2026-11-29T00:00:00.000Z', null, 1, 0, 0),
      ],
      totals: { ...sums, requests: 8, failed: 3, total_tokens: 80, cost_micros: 2_000_010 },
    };
    expect(groupedRows(series, 'requests')).toEqual({
      groups: ['(none)', 'a-model', 'b-model', 'Other'],
      rows: [
        { label: '2026-11-28', '(none)': 0, 'a-model': 0, 'b-model': 1, Other: 2 },
        { label: '2026-11-29', '(none)': 1, 'a-model': 4, 'b-model': 0, Other: 0 },
      ],
    });
    expect(groupedRows(series, 'cost_micros').rows[1]['a-model']).toBe(2);
    expect(groupTotals(series).map((total) => [total.group, total.requests, total.failed, total.cost_micros])).toEqual([
      ['a-model', 4, 1, 2_000_000],
      ['Other', 2, 2, 0],
      ['(none)', 1, 0, 0],
      ['b-model', 1, 0, 10],
    ]);
  });
});
