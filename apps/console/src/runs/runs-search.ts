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

/** The router's validateSearch: what of the URL's params is a filter the API takes. */
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
  return parsed;
}

/** The ledger route's path and query for one page of the filtered runs. */
export function runsRequestPath(search: RunsSearch, page: { limit: number; before?: string }): string {
  const query = new URLSearchParams();
  for (const name of ['from', 'to', 'status', 'artifact', 'user'] as const) {
    const value = search[name];
    if (value !== undefined) query.set(name, value);
  }
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
