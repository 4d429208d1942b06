import { Controller } from '@nestjs/common';
import {
  CreateExperimentRunRequest,
  ExperimentCellsRequest,
  ExperimentPatterns,
  ExperimentRunIdRequest,
  ListExperimentRunsRequest,
  type ExperimentCellsPage,
  type ExperimentRunView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { ExperimentRunsService } from './experiment-runs.service';

@Controller()
export class ExperimentRunsController {
  constructor(private readonly experiments: ExperimentRunsService) {}

  @RpcHandler(ExperimentPatterns.createRun)
  create(request: CreateExperimentRunRequest): Promise<ExperimentRunView> {
    return this.experiments.create(request.workspace_id, request.run);
  }

  @RpcHandler(ExperimentPatterns.listRuns)
  list(request: ListExperimentRunsRequest): Promise<ExperimentRunView[]> {
    return this.experiments.list(request.workspace_id, request.limit, request.before);
  }

  @RpcHandler(ExperimentPatterns.getRun)
  get(request: ExperimentRunIdRequest): Promise<ExperimentRunView> {
    return this.experiments.get(request.workspace_id, request.run_id);
  }

  @RpcHandler(ExperimentPatterns.listCells)
  cells(request: ExperimentCellsRequest): Promise<ExperimentCellsPage> {
    const { workspace_id, run_id, ...filter } = request;
    return this.experiments.cells(workspace_id, run_id, filter);
  }
}
