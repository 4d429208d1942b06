import { datasetRowProblem, type DatasetImportFormat, type DatasetRowInput } from '@waggle/contracts';
import { WaggleException, type ErrorDetail } from '@waggle/errors';
import { assertStorableInput } from '@waggle/platform';
import { CsvError, parse as parseCsv } from 'csv-parse/sync';

/** Rows read from an upload, each with the line it ends on (what an error names). */
export interface ImportedRows {
  rows: DatasetRowInput[];
  lines: number[];
}

/** Where a CSV column goes in a row. */
type ColumnTarget = { kind: 'inputs' | 'metadata'; key: string } | { kind: 'expected_output' };

const BOM = '\uFEFF';
const EXPECTED_OUTPUT = 'expected_output';

function refused(problem: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { status: 400, ...problem });
}

/** Parses an upload (text already checked as UTF-8) into rows, or refuses it naming the line. */
export function importRows(format: DatasetImportFormat, content: string, columns: string | undefined): ImportedRows {
  if (format === 'jsonl') {
    if (columns !== undefined) throw refused({ detail: 'dataset_columns_not_csv' });
    return rowsFromJsonl(content);
  }
  return rowsFromCsv(content, columns === undefined ? undefined : columnMap(columns));
}

/** One row object per line; blank lines are skipped. */
export function rowsFromJsonl(content: string): ImportedRows {
  const text = content.startsWith(BOM) ? content.slice(1) : content;
  const imported: ImportedRows = { rows: [], lines: [] };
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw refused({ detail: 'dataset_line_not_json', params: { line: index + 1 } });
    }
    imported.rows.push(checkedRow(row, index + 1));
    imported.lines.push(index + 1);
  }
  return imported;
}

/**
 * A header row, then one row per record. Without a column map every header is an input except
 * one named `expected_output`; with one, each header it names goes where it says and the others
 * are left out. Cells are text; an empty `expected_output` or metadata cell is absent.
 */
export function rowsFromCsv(content: string, columns: Map<string, ColumnTarget> | undefined): ImportedRows {
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    // With `info`, each record comes with where it ends (csv-parse's types do not follow the option).
    records = parseCsv(content, { bom: true, info: true, skip_empty_lines: true }) as unknown as typeof records;
  } catch (error) {
    if (error instanceof CsvError)
      throw refused({
        detail: 'dataset_csv_unreadable',
        params: { line: (error as CsvError & { lines?: number }).lines ?? 0, reason: error.message.slice(0, 200) },
      });
    throw error;
  }
  const header = records.shift();
  if (!header) throw refused({ detail: 'dataset_csv_no_header' });
  const seen = new Set<string>();
  for (const [index, name] of header.record.entries()) {
    if (name === '' || seen.has(name)) throw refused({ detail: 'dataset_csv_header_invalid', params: { index, name: name.slice(0, 100) } });
    seen.add(name);
  }
  for (const named of columns?.keys() ?? [])
    if (!seen.has(named)) throw refused({ detail: 'dataset_columns_header_missing', params: { header: named.slice(0, 100) } });
  const targets = header.record.map((name) => (columns ? columns.get(name) : defaultTarget(name)));
  const imported: ImportedRows = { rows: [], lines: [] };
  for (const { record, info } of records) {
    const row: DatasetRowInput = { inputs: {} };
    const metadata: Record<string, string> = {};
    for (const [index, cell] of record.entries()) {
      const target = targets[index];
      if (target === undefined) continue;
      if (target.kind === 'inputs') row.inputs[target.key] = cell;
      else if (cell === '') continue;
      else if (target.kind === 'metadata') metadata[target.key] = cell;
      else row.expected_output = cell;
    }
    if (Object.keys(metadata).length > 0) row.metadata = metadata;
    imported.rows.push(checkedRow(row, info.lines));
    imported.lines.push(info.lines);
  }
  return imported;
}

function defaultTarget(header: string): ColumnTarget {
  return header === EXPECTED_OUTPUT ? { kind: 'expected_output' } : { kind: 'inputs', key: header };
}

/** `columns` as sent (JSON text) into a map of header → target, or a refusal. */
export function columnMap(columns: string): Map<string, ColumnTarget> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(columns);
  } catch {
    throw refused({ detail: 'dataset_columns_invalid' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.keys(parsed).length === 0)
    throw refused({ detail: 'dataset_columns_invalid' });
  const map = new Map<string, ColumnTarget>();
  const used = new Set<string>();
  for (const [header, target] of Object.entries(parsed)) {
    const parsedTarget = typeof target === 'string' ? columnTarget(target) : undefined;
    if (!parsedTarget)
      throw refused({
        detail: 'dataset_columns_target_invalid',
        params: { header: header.slice(0, 100), target: JSON.stringify(target ?? null).slice(0, 100) },
      });
    if (used.has(target as string)) throw refused({ detail: 'dataset_columns_target_repeated', params: { target: String(target) } });
    used.add(target as string);
    map.set(header, parsedTarget);
  }
  return map;
}

function columnTarget(target: string): ColumnTarget | undefined {
  if (target === EXPECTED_OUTPUT) return { kind: 'expected_output' };
  const dot = target.indexOf('.');
  const kind = target.slice(0, dot);
  const key = target.slice(dot + 1);
  if (dot < 0 || key === '' || (kind !== 'inputs' && kind !== 'metadata')) return undefined;
  return { kind, key };
}

/** A parsed row as a version takes it: the shape of a row, and text PostgreSQL can store. */
function checkedRow(row: unknown, line: number): DatasetRowInput {
  const problem = datasetRowProblem(row);
  if (problem) throw refused({ detail: 'dataset_line_refused', params: { line, reason: problem } });
  assertStorableInput(row, `lines.${line}`);
  return row as DatasetRowInput;
}
