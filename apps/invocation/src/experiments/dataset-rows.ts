import type { DatasetRowView } from '@waggle/contracts';
import type { DatasetsService } from '../datasets/datasets.service';

/** Rows read per query when a run loads its dataset version. */
const ROWS_PAGE = 1_000;

/**
 * Every row of a dataset version, in order (a version holds at most DATASET_ROW_LIMIT), or null
 * when the version is gone or ends short of its row count (deleted under the reader).
 */
export async function versionRows(
  datasets: DatasetsService,
  workspaceId: string,
  datasetId: string,
  version: number,
): Promise<DatasetRowView[] | null> {
  const found = await datasets.version(workspaceId, datasetId, version);
  if (!found) return null;
  const rows: DatasetRowView[] = [];
  while (rows.length < found.row_count) {
    const page = await datasets.rows(workspaceId, datasetId, version, { offset: rows.length, limit: ROWS_PAGE });
    if (page.length === 0) return null;
    rows.push(...page);
  }
  return rows;
}
