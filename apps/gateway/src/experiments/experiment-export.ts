import type { EvaluatorSpec, ExperimentCellView } from '@waggle/contracts';
import { stringify } from 'csv-stringify/sync';

/** The export formats of a run's cells, their content types and file extensions. */
export const EXPORT_FORMATS = {
  csv: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  jsonl: { contentType: 'application/x-ndjson; charset=utf-8', extension: 'jsonl' },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.hasOwn(EXPORT_FORMATS, value);
}

/** The fixed columns of a CSV export, before one column per evaluator score. */
const FIXED_COLUMNS = ['row_id', 'candidate', 'status', 'passed', 'latency_ms', 'cost_micros', 'output', 'error_code'];

/** The evaluators' names, as a run's results key their scores. */
export function evaluatorNames(evaluators: readonly EvaluatorSpec[]): string[] {
  return evaluators.map((spec) => spec.name ?? spec.type);
}

/**
 * CSV lines by csv-stringify (RFC 4180 quoting, CRLF): a structured output is written as JSON, and a
 * value a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or CR first) is written with a
 * leading `'`, as OWASP advises for CSV exports: a model's output is untrusted text.
 */
function csvRecord(values: unknown[]): string {
  return stringify([values], {
    record_delimiter: 'windows',
    escape_formulas: true,
    cast: { boolean: (value) => String(value), object: (value) => JSON.stringify(value) },
  });
}

export function csvHeader(evaluators: readonly string[]): string {
  return csvRecord([...FIXED_COLUMNS, ...evaluators.map((name) => `score:${name}`)]);
}

/** A cell as a CSV line: its output as text (JSON for a structured one), each evaluator's score (empty when it was not evaluated). */
export function csvLine(cell: ExperimentCellView, evaluators: readonly string[]): string {
  const scores = new Map(cell.evaluations.map((evaluation) => [evaluation.evaluator, evaluation.score]));
  return csvRecord([
    cell.row_id,
    cell.candidate,
    cell.status,
    cell.passed,
    cell.latency_ms,
    cell.cost_micros,
    cell.output,
    cell.error?.code ?? null,
    ...evaluators.map((name) => scores.get(name) ?? null),
  ]);
}

export function jsonlLine(cell: ExperimentCellView): string {
  return `${JSON.stringify(cell)}\n`;
}
