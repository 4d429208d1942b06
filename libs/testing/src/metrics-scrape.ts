import { getMetricsFromIterator, type PromHistogramData, type PromMetrics } from 'prom2javascript';

/** One `/metrics` scrape, as a Prometheus server would make it, parsed by a library (prom2javascript). */
export async function scrapeMetrics(url: string): Promise<PromMetrics> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  expectTextFormat(response.headers.get('content-type'));
  const text = await response.text();
  return getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
}

function expectTextFormat(contentType: string | null): void {
  if (!contentType?.startsWith('text/plain'))
    throw new Error(`/metrics answered content-type ${contentType}, not the Prometheus text format`);
}

function matches(labels: Record<string, string>, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([name, value]) => labels[name] === value);
}

/** The sum of a counter's or gauge's samples whose labels include `labels` (0 when there is none). */
export function sampleSum(metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number {
  const metric = metrics[name];
  if (!metric) return 0;
  return (metric.data as Array<{ labels: Record<string, string>; value?: number }>)
    .filter((sample) => matches(sample.labels, labels))
    .reduce((sum, sample) => sum + (sample.value ?? 0), 0);
}

/** A histogram's observation count, summed over its series whose labels include `labels`. */
export function histogramCount(metrics: PromMetrics, name: string, labels: Record<string, string> = {}): number {
  const metric = metrics[name];
  if (!metric || metric.type !== 'histogram') return 0;
  return (metric.data as PromHistogramData[])
    .filter((series) => matches(series.labels, labels))
    .reduce((sum, series) => sum + series.count, 0);
}

/** Every label set a metric has samples for. */
export function labelSets(metrics: PromMetrics, name: string): Array<Record<string, string>> {
  return (metrics[name]?.data ?? []).map((sample) => sample.labels);
}

export type { PromMetrics };
