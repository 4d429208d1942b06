import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DatasetRowInput, DatasetRowUpdate } from '@waggle/contracts';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import { SCHEMA } from '../database/data-source';
import { DatasetRowEntity } from './entities/dataset-row.entity';
import { DatasetVersionEntity } from './entities/dataset-version.entity';
import { DatasetEntity } from './entities/dataset.entity';

type VersionRow = RowOf<DatasetVersionEntity, 'dataset'>;
type RowRow = RowOf<DatasetRowEntity, 'datasetVersion'>;

const SQL = defineSql(__filename, {
  /** A new dataset, or no row when the workspace has one of that name (concurrent creators included). */
  insertDataset: sql<RowOf<DatasetEntity>>(`
    INSERT INTO "${SCHEMA}"."datasets" ("workspace_id", "name", "description")
    VALUES ($1, $2, $3)
    ON CONFLICT ("workspace_id", "name") DO NOTHING
    RETURNING *`),
  /** A version of a dataset of the workspace. */
  findVersion: sql<VersionRow>(`
    SELECT v.*
    FROM "${SCHEMA}"."dataset_versions" v
    JOIN "${SCHEMA}"."datasets" d ON d."id" = v."dataset_id"
    WHERE d."workspace_id" = $1 AND v."dataset_id" = $2 AND v."version" = $3`),
  /** A page of a version's rows, in order, of a dataset of the workspace. */
  rowsPage: sql<RowRow>(`
    SELECT r.*
    FROM "${SCHEMA}"."dataset_rows" r
    JOIN "${SCHEMA}"."datasets" d ON d."id" = r."dataset_id"
    WHERE d."workspace_id" = $1 AND r."dataset_id" = $2 AND r."version" = $3
    ORDER BY r."position"
    OFFSET $4 LIMIT $5`),
  /** The ids among $3 that are not rows of the version. */
  unknownRowIds: sql<{ id: string }>(`
    SELECT given."id"
    FROM unnest($3::uuid[]) AS given("id")
    WHERE NOT EXISTS (
      SELECT 1 FROM "${SCHEMA}"."dataset_rows" r
      WHERE r."dataset_id" = $1 AND r."version" = $2 AND r."row_id" = given."id"
    )`),
  /**
   * Copies the base version's rows into the new one, in order and with their ids: the rows in
   * $4 (a JSON list of {id, inputs, expected_output?, metadata?}) replaced, the ids in $5 left out.
   */
  copyBaseRows: sql(`
    INSERT INTO "${SCHEMA}"."dataset_rows" ("dataset_id", "version", "position", "row_id", "inputs", "expected_output", "metadata")
    SELECT r."dataset_id", $3, (row_number() OVER (ORDER BY r."position") - 1)::int, r."row_id",
      CASE WHEN u."value" IS NULL THEN r."inputs" ELSE u."value" -> 'inputs' END,
      CASE WHEN u."value" IS NULL THEN r."expected_output" ELSE NULLIF(u."value" -> 'expected_output', 'null'::jsonb) END,
      CASE WHEN u."value" IS NULL THEN r."metadata" ELSE COALESCE(NULLIF(u."value" -> 'metadata', 'null'::jsonb), '{}'::jsonb) END
    FROM "${SCHEMA}"."dataset_rows" r
    LEFT JOIN jsonb_array_elements($4::jsonb) AS u("value") ON (u."value" ->> 'id')::uuid = r."row_id"
    WHERE r."dataset_id" = $1 AND r."version" = $2 AND r."row_id" <> ALL($5::uuid[])`),
  /** Appends the rows in $4 (a JSON list of {inputs, expected_output?, metadata?}) from position $3, each with a new id. */
  appendRows: sql(`
    INSERT INTO "${SCHEMA}"."dataset_rows" ("dataset_id", "version", "position", "row_id", "inputs", "expected_output", "metadata")
    SELECT $1, $2, $3 + (t."ordinality" - 1)::int, gen_random_uuid(), t."value" -> 'inputs',
      NULLIF(t."value" -> 'expected_output', 'null'::jsonb),
      COALESCE(NULLIF(t."value" -> 'metadata', 'null'::jsonb), '{}'::jsonb)
    FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS t("value", "ordinality")`),
});

/** What a new version is made of (checked by the service first). */
export interface NewDatasetVersion {
  version: number;
  /** The base version and its changes; `kept`: how many of its rows the new version copies. */
  base: { version: number; update: DatasetRowUpdate[]; remove: string[]; kept: number } | null;
  add: DatasetRowInput[];
  rowCount: number;
}

/** Datasets, their versions and their rows. */
@Injectable()
export class DatasetsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The workspace's datasets, by name. */
  list(workspaceId: string): Promise<DatasetEntity[]> {
    return this.table(DatasetEntity).find({ where: { workspaceId }, order: { name: 'ASC' } });
  }

  find(workspaceId: string, id: string): Promise<DatasetEntity | null> {
    return this.table(DatasetEntity).findOneBy({ workspaceId, id });
  }

  /** The dataset, locked until the transaction ends (its next version number is decided under it). */
  findForUpdate(workspaceId: string, id: string): Promise<DatasetEntity | null> {
    return this.table(DatasetEntity).findOne({ where: { workspaceId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /** The new dataset, or null when the workspace has one of that name. */
  async insert(workspaceId: string, name: string, description: string | null): Promise<DatasetEntity | null> {
    const row = await this.row(SQL.insertDataset, [workspaceId, name, description]);
    return row && this.table(DatasetEntity).create(toDataset(row));
  }

  /** Deletes the dataset with its versions and rows (cascade). */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    const result = await this.table(DatasetEntity).delete({ workspaceId, id });
    return (result.affected ?? 0) > 0;
  }

  /** The dataset's versions, newest first. */
  versions(datasetId: string): Promise<DatasetVersionEntity[]> {
    return this.table(DatasetVersionEntity).find({ where: { datasetId }, order: { version: 'DESC' } });
  }

  /** One version of a dataset of the workspace, or null. */
  async version(workspaceId: string, datasetId: string, version: number): Promise<DatasetVersionEntity | null> {
    const row = await this.row(SQL.findVersion, [workspaceId, datasetId, version]);
    return row && this.table(DatasetVersionEntity).create(toVersion(row));
  }

  /** A page of a version's rows in order (none when the dataset is not the workspace's). */
  async rowsPage(workspaceId: string, datasetId: string, version: number, offset: number, limit: number): Promise<DatasetRowEntity[]> {
    const rows = await this.rows(SQL.rowsPage, [workspaceId, datasetId, version, offset, limit]);
    return rows.map((row) => this.table(DatasetRowEntity).create(toRow(row)));
  }

  /** The ids that are not rows of the version. */
  async unknownRowIds(datasetId: string, version: number, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return (await this.rows(SQL.unknownRowIds, [datasetId, version, ids])).map((row) => row.id);
  }

  /** Writes the version and its rows, and makes it the dataset's latest (inside the caller's transaction, under findForUpdate's lock). */
  async insertVersion(datasetId: string, made: NewDatasetVersion): Promise<DatasetVersionEntity> {
    const versions = this.table(DatasetVersionEntity);
    const version = await versions.save(
      versions.create({ datasetId, version: made.version, baseVersion: made.base?.version ?? null, rowCount: made.rowCount }),
    );
    if (made.base)
      await this.execute(SQL.copyBaseRows, [
        datasetId,
        made.base.version,
        made.version,
        JSON.stringify(made.base.update),
        made.base.remove,
      ]);
    if (made.add.length > 0) await this.execute(SQL.appendRows, [datasetId, made.version, made.base?.kept ?? 0, JSON.stringify(made.add)]);
    await this.table(DatasetEntity).update({ id: datasetId }, { latestVersion: made.version });
    return version;
  }
}

function toDataset(row: RowOf<DatasetEntity>): Partial<DatasetEntity> {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    description: row.description,
    latestVersion: row.latest_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersion(row: VersionRow): Partial<DatasetVersionEntity> {
  return {
    datasetId: row.dataset_id,
    version: row.version,
    baseVersion: row.base_version,
    rowCount: row.row_count,
    createdAt: row.created_at,
  };
}

function toRow(row: RowRow): Partial<DatasetRowEntity> {
  return {
    datasetId: row.dataset_id,
    version: row.version,
    position: row.position,
    rowId: row.row_id,
    inputs: row.inputs,
    expectedOutput: row.expected_output,
    metadata: row.metadata,
  };
}
