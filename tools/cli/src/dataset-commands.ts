import {
  DatasetPatterns,
  type DatasetDetailView,
  type DatasetRowView,
  type DatasetVersionFields,
  type DatasetVersionView,
  type DatasetView,
} from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { extname } from 'node:path';
import type { Caller } from './cli';
import { confirmDestructive, yesOption } from './confirm';
import { CliFailure, EXIT } from './exit-codes';
import { readInputFile, readYamlFile } from './input-file';
import { print } from './output';

function wholeNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return parsed;
}

const datasetRow = (dataset: DatasetView) => ({
  id: dataset.id,
  name: dataset.name,
  latest_version: dataset.latest_version,
  description: dataset.description,
  updated_at: dataset.updated_at,
});

const versionRow = (version: DatasetVersionView) => ({
  version: version.version,
  base_version: version.base_version,
  row_count: version.row_count,
  created_at: version.created_at,
});

const rowRow = (row: DatasetRowView) => ({
  id: row.id,
  inputs: JSON.stringify(row.inputs),
  expected_output: row.expected_output === null ? null : JSON.stringify(row.expected_output),
  metadata: Object.keys(row.metadata).length === 0 ? null : JSON.stringify(row.metadata),
});

/**
 * A version's body from a YAML or JSON file: `{rows: [...]}` or a list of rows, or
 * `{base_version?, add?, update?, remove?}`; with `--base`, a list (or `rows`) is added to that version.
 */
export function versionFromDocument(document: unknown, path: string, base: number | undefined): DatasetVersionFields {
  const usage = () =>
    new CliFailure(EXIT.usage, `error: ${path} must hold a list of rows, {rows: [...]}, or {base_version, add, update, remove}`);
  const fields: Record<string, unknown> = Array.isArray(document)
    ? { rows: document }
    : document !== null && typeof document === 'object'
      ? { ...(document as Record<string, unknown>) }
      : {};
  if (Object.keys(fields).length === 0) throw usage();
  if (base === undefined) return fields as DatasetVersionFields;
  if (fields.rows !== undefined) {
    fields.add = fields.rows;
    delete fields.rows;
  }
  return { ...fields, base_version: base } as DatasetVersionFields;
}

/** The import format a file's extension says, or undefined for YAML and JSON. */
function importFormat(path: string): 'csv' | 'jsonl' | undefined {
  const extension = extname(path).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  return undefined;
}

/**
 * `dataset list|show|create|delete|rows` and `dataset version create`: a workspace's datasets
 * (the spec's decisions on experiments and releases, "datasets"), as /v1/private/datasets
 * manages them. A version comes from a YAML, JSON, JSONL or CSV file.
 */
export function addDatasetCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const dataset = program.command('dataset').description("a workspace's datasets: named, with numbered immutable versions of rows");

  dataset
    .command('list <workspace-id>')
    .description("a workspace's datasets, by name")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const datasets = await call(DatasetPatterns.listDatasets, { workspace_id: workspaceId });
      print(datasets, Boolean(options.json), datasets.map(datasetRow));
    });
  dataset
    .command('show <workspace-id> <dataset-id>')
    .description('one dataset and its versions, newest first')
    .addOption(json())
    .action(async (workspaceId: string, datasetId: string, options: { json?: boolean }) => {
      const found: DatasetDetailView = await call(DatasetPatterns.getDataset, { workspace_id: workspaceId, dataset_id: datasetId });
      print(found, Boolean(options.json), [datasetRow(found)]);
      if (!options.json) print(found.versions, false, found.versions.map(versionRow));
    });
  dataset
    .command('create <workspace-id>')
    .description('a new dataset, without versions yet')
    .requiredOption('--name <name>', 'unique in the workspace (letters, digits, _, . and -)')
    .option('--description <text>', 'what it holds')
    .addOption(json())
    .action(async (workspaceId: string, options: { name: string; description?: string; json?: boolean }) => {
      const created = await call(DatasetPatterns.createDataset, {
        workspace_id: workspaceId,
        dataset: { name: options.name, ...(options.description === undefined ? {} : { description: options.description }) },
      });
      print(created, Boolean(options.json), [datasetRow(created)]);
    });
  dataset
    .command('delete <workspace-id> <dataset-id>')
    .description('delete a dataset with every version and row (asks first)')
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, datasetId: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`delete dataset ${datasetId} with every version`, options.yes);
      const deleted = await call(DatasetPatterns.deleteDataset, { workspace_id: workspaceId, dataset_id: datasetId });
      print(deleted, Boolean(options.json), [{ deleted: deleted.id }]);
    });
  dataset
    .command('rows <workspace-id> <dataset-id> <version>')
    .description("a page of a version's rows, in order")
    .option('--limit <n>', 'rows per page (1 to 1000, default 100)', wholeNumber)
    .option('--offset <n>', 'rows to skip', wholeNumber)
    .addOption(json())
    .action(
      async (workspaceId: string, datasetId: string, version: string, options: { limit?: number; offset?: number; json?: boolean }) => {
        const page = await call(DatasetPatterns.listRows, {
          workspace_id: workspaceId,
          dataset_id: datasetId,
          version: wholeNumber(version),
          page: { limit: options.limit, offset: options.offset },
        });
        print(page, Boolean(options.json), page.rows.map(rowRow));
        if (!options.json && page.next_offset !== null) process.stdout.write(`(${page.total} rows; next: --offset ${page.next_offset})\n`);
      },
    );

  const version = dataset.command('version').description("a dataset's versions");
  version
    .command('create <workspace-id> <dataset-id>')
    .description(
      'a new version from a file: YAML or JSON ({rows: [...]}, a list of rows, or {base_version, add, update, remove}), JSONL (a row per line) or CSV (a header row)',
    )
    .requiredOption('-f, --file <path>', 'the rows (.yaml, .yml, .json, .jsonl, .csv)')
    .option('--columns <json>', 'CSV only: a JSON object mapping headers to inputs.<name>, expected_output or metadata.<key>')
    .option('--base <version>', "add the file's rows to this version's (they keep their ids)", wholeNumber)
    .addOption(json())
    .action(async (workspaceId: string, datasetId: string, options: { file: string; columns?: string; base?: number; json?: boolean }) => {
      const format = importFormat(options.file);
      if (options.columns !== undefined && format !== 'csv')
        throw new CliFailure(EXIT.usage, 'error: --columns applies to a .csv file only');
      const made =
        format === undefined
          ? await call(DatasetPatterns.createVersion, {
              workspace_id: workspaceId,
              dataset_id: datasetId,
              version: versionFromDocument(await readYamlFile<unknown>(options.file), options.file, options.base),
            })
          : await call(DatasetPatterns.importVersion, {
              workspace_id: workspaceId,
              dataset_id: datasetId,
              options: {
                format,
                ...(options.columns === undefined ? {} : { columns: options.columns }),
                ...(options.base === undefined ? {} : { base_version: options.base }),
              },
              content: await readInputFile(options.file),
            });
      print(made, Boolean(options.json), [versionRow(made)]);
    });
}
