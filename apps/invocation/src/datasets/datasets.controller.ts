import { Controller } from '@nestjs/common';
import {
  CreateDatasetRequest,
  CreateDatasetVersionRequest,
  DatasetIdRequest,
  DatasetPatterns,
  ImportDatasetVersionRequest,
  ListDatasetRowsRequest,
  WorkspaceIdRequest,
  type DatasetDetailView,
  type DatasetRowsPageView,
  type DatasetVersionView,
  type DatasetView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { DatasetsService } from './datasets.service';

@Controller()
export class DatasetsController {
  constructor(private readonly datasets: DatasetsService) {}

  @RpcHandler(DatasetPatterns.listDatasets)
  list(request: WorkspaceIdRequest): Promise<DatasetView[]> {
    return this.datasets.list(request.workspace_id);
  }

  @RpcHandler(DatasetPatterns.createDataset)
  create(request: CreateDatasetRequest): Promise<DatasetView> {
    return this.datasets.create(request.workspace_id, request.dataset);
  }

  @RpcHandler(DatasetPatterns.getDataset)
  get(request: DatasetIdRequest): Promise<DatasetDetailView> {
    return this.datasets.get(request.workspace_id, request.dataset_id);
  }

  @RpcHandler(DatasetPatterns.deleteDataset)
  delete(request: DatasetIdRequest): Promise<{ id: string }> {
    return this.datasets.delete(request.workspace_id, request.dataset_id);
  }

  @RpcHandler(DatasetPatterns.createVersion)
  createVersion(request: CreateDatasetVersionRequest): Promise<DatasetVersionView> {
    return this.datasets.createVersion(request.workspace_id, request.dataset_id, request.version);
  }

  @RpcHandler(DatasetPatterns.importVersion)
  importVersion(request: ImportDatasetVersionRequest): Promise<DatasetVersionView> {
    return this.datasets.importVersion(request.workspace_id, request.dataset_id, request.options, request.content);
  }

  @RpcHandler(DatasetPatterns.listRows)
  listRows(request: ListDatasetRowsRequest): Promise<DatasetRowsPageView> {
    return this.datasets.rowsPage(request.workspace_id, request.dataset_id, request.version, request.page);
  }
}
