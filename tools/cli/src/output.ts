/** Prints a result: JSON for scripts (`--json`), aligned columns for people. */
export function print(value: unknown, json: boolean, rows?: Array<Record<string, unknown>>): void {
  if (json || !rows) {
    process.stdout.write(`${JSON.stringify(value, null, json ? 0 : 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const columns = Object.keys(rows[0]);
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index]))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(columns), ...rows.map((row) => line(columns.map((column) => cell(row[column]))))].join('\n')}\n`);
}

export function formatLimit(value: number | null): string {
  return value === null ? 'unlimited' : String(value);
}
