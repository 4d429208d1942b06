/**
 * The Runs screen's filters: kept in the URL's search params (a filtered view is a link), read
 * back leniently (an unknown value is dropped, never an error page), and turned into the query
 * of `GET /v1/private/requests`, which filters and pages on the server.
 */
export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunsSearch {
  /** ISO 8601 instants: runs generated at or after `from`, before `to`. */
  from?: string;
  to?: string;
  status?: RunStatus;
  /** The artifact's id (a run's `requestable_id`). */
  artifact?: string;
  /** The end user label a caller gave. */
  user?: string;
  /** The model that answered the run. */
  model?: string;
  /** The id of the API key that started the run. */
  api_key?: string;
  /** Runs whose metadata has this key, and with `metadata_value` this value. */
  metadata_key?: string;
  metadata_value?: string;
  /** The cost range in USD (up to 6 decimals: a micro-USD); a run without a cost is outside any range. */
  min_cost?: number;
  max_cost?: number;
}

/** The filters, in the order the URL and the API query name them. */
const FILTER_NAMES = ['from', 'to', 'status', 'artifact', 'user', 'model', 'api_key', 'metadata_key', 'metadata_value'] as const;

/** A USD amount as typed: digits, and up to 6 decimals. */
const USD = /^\d{1,9}(\.\d{1,6})?$/;

/** A USD amount (at most 6 decimals, below a billion) as the API's integer micro-USD. */
export function microsOfUsd(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** One page as the console asks for it. */
export const RUNS_PAGE_SIZE = 50;
/** An export reads the filtered rows this many at a time (the API's largest page is 1,000). */
export const EXPORT_PAGE_SIZE = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isInstant(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** The router's validateSearch: what of the URL's params is a filter the API takes (a cost as USD, which the query sends as micro-USD). */
export function parseRunsSearch(search: Record<string, unknown>): RunsSearch {
  const parsed: RunsSearch = {};
  const from = text(search.from);
  if (from && isInstant(from)) parsed.from = from;
  const to = text(search.to);
  if (to && isInstant(to)) parsed.to = to;
  const status = text(search.status);
  if (status && (RUN_STATUSES as readonly string[]).includes(status)) parsed.status = status as RunStatus;
  const artifact = text(search.artifact);
  if (artifact && UUID.test(artifact)) parsed.artifact = artifact.toLowerCase();
  const user = text(search.user);
  if (user && user.length <= 256) parsed.user = user;
  const model = text(search.model);
  if (model && model.length <= 200) parsed.model = model;
  const apiKey = text(search.api_key);
  if (apiKey && UUID.test(apiKey)) parsed.api_key = apiKey.toLowerCase();
  const metadataKey = text(search.metadata_key);
  if (metadataKey && metadataKey.length <= 128) {
    parsed.metadata_key = metadataKey;
    // A value means nothing without its key; numbers and booleans in the URL are read back as typed.
    const raw = search.metadata_value;
    const metadataValue = typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : typeof raw === 'string' ? raw : undefined;
    if (metadataValue !== undefined && metadataValue.length <= 2048) parsed.metadata_value = metadataValue;
  }
  // A number in the URL (the router writes numbers bare), or the text typed in the form.
  for (const name of ['min_cost', 'max_cost'] as const) {
    const raw = search[name];
    const amount = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : text(raw);
    if (amount && USD.test(amount)) parsed[name] = Number(amount);
  }
  return parsed;
}

/** The ledger route's path and query for one page of the filtered runs. */
export function runsRequestPath(search: RunsSearch, page: { limit: number; before?: string }): string {
  const query = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = search[name];
    if (value !== undefined) query.set(name, value);
  }
  if (search.min_cost !== undefined) query.set('min_cost_micros', String(microsOfUsd(search.min_cost)));
  if (search.max_cost !== undefined) query.set('max_cost_micros', String(microsOfUsd(search.max_cost)));
  query.set('limit', String(page.limit));
  if (page.before !== undefined) query.set('before', page.before);
  return `/v1/private/requests?${query.toString()}`;
}

/**
 * A `datetime-local` input's value (the user's local time, minutes) as an ISO instant, and
 * back; undefined for an empty or unreadable value.
 */
export function instantOfLocalInput(value: string): string | undefined {
  if (value === '') return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

export function localInputOfInstant(instant: string | undefined): string {
  if (instant === undefined) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Whether a page shows a run that has not ended yet (queued or running): the page then refreshes until it has. */
export function hasLiveRuns(rows: ReadonlyArray<{ status: string }> | undefined): boolean {
  return rows?.some((row) => row.status === 'queued' || row.status === 'running') ?? false;
}
