import { Injectable } from '@nestjs/common';
import {
  DATASET_ROW_LIMIT,
  DATASET_ROW_MAX_BYTES,
  DATASET_ROWS_PAGE_DEFAULT,
  type DatasetDetailView,
  type DatasetFields,
  type DatasetImportOptions,
  type DatasetRowInput,
  type DatasetRowsPage,
  type DatasetRowsPageView,
  type DatasetRowView,
  type DatasetVersionFields,
  type DatasetVersionView,
  type DatasetView,
} from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import { importRows } from './dataset-import';
import { DatasetsRepository, type NewDatasetVersion } from './datasets.repository';
import type { DatasetRowEntity } from './entities/dataset-row.entity';
import type { DatasetVersionEntity } from './entities/dataset-version.entity';
import type { DatasetEntity } from './entities/dataset.entity';

/** A version's rows as a client gives them: full rows, or a base version and its changes. */
type VersionChange = Pick<DatasetVersionFields, 'rows' | 'base_version' | 'add' | 'update' | 'remove'>;

/** How a refused row is named: by its index in the body, or by its line in an upload. */
type RowPlace = (index: number, bytes: number) => { field: string; problem: ErrorDetail };

function datasetNotFound(): WaggleException {
  return new WaggleException('resource_not_found', { detail: 'dataset_not_found' });
}

function invalid(field: string, problem: ErrorDetail, status?: 400 | 413): WaggleException {
  return new WaggleException('validation_error', {
    ...problem,
    ...(status === undefined ? {} : { status }),
    details: [{ field, messages: [errorMessage(problem, 'en')] }],
  });
}

function rowLimitExceeded(rows: number): WaggleException {
  return new WaggleException('experiment_dataset_row_limit_exceeded', { details: { max_rows: DATASET_ROW_LIMIT, rows } });
}

export function toDatasetView(dataset: DatasetEntity): DatasetView {
  return {
    id: dataset.id,
    name: dataset.name,
    description: dataset.description,
    latest_version: dataset.latestVersion,
    created_at: dataset.createdAt.toISOString(),
    updated_at: dataset.updatedAt.toISOString(),
  };
}

export function toDatasetVersionView(version: DatasetVersionEntity): DatasetVersionView {
  return {
    dataset_id: version.datasetId,
    version: version.version,
    base_version: version.baseVersion,
    row_count: version.rowCount,
    created_at: version.createdAt.toISOString(),
  };
}

export function toDatasetRowView(row: DatasetRowEntity): DatasetRowView {
  return { id: row.rowId, inputs: row.inputs, expected_output: row.expectedOutput ?? null, metadata: row.metadata };
}

const BODY_PLACE: RowPlace = (index, bytes) => ({
  field: `${index}`,
  problem: { detail: 'dataset_row_too_large', params: { index, bytes, max: DATASET_ROW_MAX_BYTES } },
});

/**
 * A workspace's datasets (the spec's decisions on experiments and releases, "datasets"): named,
 * with numbered immutable versions made from full rows, from a base version and its changes, or
 * from a CSV or JSONL upload. Every limit is checked before anything is written, and a version is
 * written in one transaction under its dataset's lock, so concurrent creators get consecutive
 * numbers. Experiment runs read versions and rows through `version` and `rows`.
 */
@Injectable()
export class DatasetsService {
  constructor(private readonly datasets: DatasetsRepository) {}

  async list(workspaceId: string): Promise<DatasetView[]> {
    return (await this.datasets.list(workspaceId)).map(toDatasetView);
  }

  /** The dataset with its versions, newest first. */
  async get(workspaceId: string, id: string): Promise<DatasetDetailView> {
    const dataset = await this.datasets.find(workspaceId, id);
    if (!dataset) throw datasetNotFound();
    const versions = await this.datasets.versions(id);
    return { ...toDatasetView(dataset), versions: versions.map(toDatasetVersionView) };
  }

  async create(workspaceId: string, fields: DatasetFields): Promise<DatasetView> {
    const created = await this.datasets.insert(workspaceId, fields.name, fields.description ?? null);
    if (!created) throw invalid('name', { detail: 'dataset_name_exists', params: { name: fields.name } });
    return toDatasetView(created);
  }

  async delete(workspaceId: string, id: string): Promise<{ id: string }> {
    if (!(await this.datasets.delete(workspaceId, id))) throw datasetNotFound();
    return { id };
  }

  /** A new version from `{rows}` or `{base_version, add?, update?, remove?}`. */
  createVersion(workspaceId: string, datasetId: string, change: VersionChange): Promise<DatasetVersionView> {
    return this.makeVersion(workspaceId, datasetId, change, (index, bytes) => {
      const place = BODY_PLACE(index, bytes);
      return { ...place, field: `${change.rows === undefined ? 'add' : 'rows'}.${place.field}` };
    });
  }

  /** A new version from a CSV or JSONL upload, appended to `base_version` when given. */
  importVersion(workspaceId: string, datasetId: string, options: DatasetImportOptions, content: string): Promise<DatasetVersionView> {
    const { rows, lines } = importRows(options.format, content, options.columns);
    const change: VersionChange = options.base_version === undefined ? { rows } : { base_version: options.base_version, add: rows };
    return this.makeVersion(workspaceId, datasetId, change, (index, bytes) => ({
      field: `lines.${lines[index]}`,
      problem: { detail: 'dataset_line_too_large', params: { line: lines[index], bytes, max: DATASET_ROW_MAX_BYTES } },
    }));
  }

  /** A page of a version's rows, with the version's row count and where the next page starts. */
  async rowsPage(workspaceId: string, datasetId: string, version: number, page: DatasetRowsPage): Promise<DatasetRowsPageView> {
    const found = await this.datasets.version(workspaceId, datasetId, version);
    if (!found) {
      if (!(await this.datasets.find(workspaceId, datasetId))) throw datasetNotFound();
      throw new WaggleException('resource_not_found', { detail: 'dataset_version_not_found', params: { version } });
    }
    const offset = page.offset ?? 0;
    const rows = await this.rows(workspaceId, datasetId, version, { offset, limit: page.limit ?? DATASET_ROWS_PAGE_DEFAULT });
    const next = offset + rows.length;
    return { rows, total: found.rowCount, next_offset: rows.length > 0 && next < found.rowCount ? next : null };
  }

  /** One version of a dataset of the workspace, or null (unknown, or another workspace's). */
  async version(workspaceId: string, datasetId: string, version: number): Promise<DatasetVersionView | null> {
    const found = await this.datasets.version(workspaceId, datasetId, version);
    return found && toDatasetVersionView(found);
  }

  /** A version's rows from `offset`, at most `limit`, in order (none for another workspace's dataset). */
  async rows(
    workspaceId: string,
    datasetId: string,
    version: number,
    { offset, limit }: { offset: number; limit: number },
  ): Promise<DatasetRowView[]> {
    return (await this.datasets.rowsPage(workspaceId, datasetId, version, offset, limit)).map(toDatasetRowView);
  }

  private async makeVersion(workspaceId: string, datasetId: string, change: VersionChange, place: RowPlace): Promise<DatasetVersionView> {
    const add = change.rows ?? change.add ?? [];
    // What the body alone shows is refused before the database is asked: the base's rows are at
    // least as many as the ids removed from it, so a version has at least as many rows as added.
    if (add.length > DATASET_ROW_LIMIT) throw rowLimitExceeded(add.length);
    checkRowSizes(add, place);
    const update = change.update ?? [];
    checkRowSizes(update, (index, bytes) => ({ ...BODY_PLACE(index, bytes), field: `update.${index}` }));
    const remove = change.remove ?? [];
    checkRepeatedIds(update, remove);
    const base = change.base_version;
    const version = await this.datasets.transaction(async () => {
      const dataset = await this.datasets.findForUpdate(workspaceId, datasetId);
      if (!dataset) throw datasetNotFound();
      let made: NewDatasetVersion['base'] = null;
      let rowCount = add.length;
      if (base !== undefined) {
        const baseVersion = await this.datasets.version(workspaceId, datasetId, base);
        if (!baseVersion) throw invalid('base_version', { detail: 'dataset_version_not_found', params: { version: base } });
        const named = [...update.map((row) => row.id), ...remove];
        const unknown = await this.datasets.unknownRowIds(datasetId, base, named);
        if (unknown.length > 0)
          throw invalid(update.some((row) => row.id === unknown[0]) ? 'update' : 'remove', {
            detail: 'dataset_row_ids_unknown',
            params: { ids: unknown.slice(0, 5).join(', ') },
          });
        rowCount = baseVersion.rowCount - remove.length + add.length;
        made = { version: base, update, remove, kept: baseVersion.rowCount - remove.length };
      }
      if (rowCount > DATASET_ROW_LIMIT) throw rowLimitExceeded(rowCount);
      return this.datasets.insertVersion(datasetId, { version: (dataset.latestVersion ?? 0) + 1, base: made, add, rowCount });
    });
    return toDatasetVersionView(version);
  }
}

/** A row over DATASET_ROW_MAX_BYTES of JSON is refused (413), named by `place`. */
function checkRowSizes(rows: DatasetRowInput[], place: RowPlace): void {
  for (const [index, row] of rows.entries()) {
    const bytes = Buffer.byteLength(JSON.stringify(row));
    if (bytes > DATASET_ROW_MAX_BYTES) {
      const { field, problem } = place(index, bytes);
      throw invalid(field, problem, 413);
    }
  }
}

/** A row id named twice (in update, in remove, or in both) is refused. */
function checkRepeatedIds(update: Array<{ id: string }>, remove: string[]): void {
  const seen = new Set<string>();
  for (const [field, ids] of [
    ['update', update.map((row) => row.id)],
    ['remove', remove],
  ] as const) {
    for (const id of ids) {
      const key = id.toLowerCase();
      if (seen.has(key)) throw invalid(field, { detail: 'dataset_row_id_repeated', params: { id } });
      seen.add(key);
    }
  }
}
