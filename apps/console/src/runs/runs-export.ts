import { stringify } from 'csv-stringify/sync';
import { EXPORT_PAGE_SIZE, runsRequestPath, type RunsSearch } from './runs-search';

/** The fields of a ledger row the console shows and exports (GET /v1/private/requests). */
export interface RunRow {
  request_id: string;
  status: string;
  request_type: string;
  requestable_type: string;
  requestable_id: string;
  message: string | null;
  metadata: Record<string, unknown>;
  generated_at: string;
  started_at: string | null;
  ended_at: string | null;
  trace_id: string | null;
  cost_micros: number | null;
  version: number | null;
  label: string | null;
  user: string | null;
  api_key_id: string | null;
  /** The model that answered (a fallback when one did); null for a workflow run. */
  model: string | null;
}

/** The CSV's columns, in order: every scalar field, and the metadata as JSON. */
export const CSV_COLUMNS = [
  'request_id',
  'status',
  'request_type',
  'requestable_type',
  'requestable_id',
  'generated_at',
  'started_at',
  'ended_at',
  'cost_micros',
  'model',
  'version',
  'label',
  'user',
  'api_key_id',
  'trace_id',
  'message',
  'metadata',
] as const;

/**
 * Every filtered run, a page at a time through the API (each page after the last run of the one
 * before), so an export never asks for more than a page in one answer.
 */
export async function* exportedRuns(
  search: RunsSearch,
  fetchPage: (path: string) => Promise<RunRow[]>,
  pageSize: number = EXPORT_PAGE_SIZE,
): AsyncGenerator<RunRow[]> {
  let before: string | undefined;
  for (;;) {
    const rows = await fetchPage(runsRequestPath(search, { limit: pageSize, before }));
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    before = rows[rows.length - 1].request_id;
  }
}

/**
 * RFC 4180 CSV (CRLF, quoted where needed) with a header line, as the experiment export writes
 * it; a cell starting with = + - @ is escaped so a spreadsheet does not run it as a formula.
 */
export function runsToCsv(rows: RunRow[]): string {
  return stringify(
    rows.map((row) => CSV_COLUMNS.map((column) => row[column])),
    {
      header: true,
      columns: [...CSV_COLUMNS],
      record_delimiter: 'windows',
      escape_formulas: true,
      cast: { boolean: (value) => String(value), object: (value) => JSON.stringify(value) },
    },
  );
}

/** One JSON object per line, every field as the API answered it. */
export function runsToJsonl(rows: RunRow[]): string {
  return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
}
