import { Controller } from '@nestjs/common';
import {
  WorkflowRunLookupRequest,
  InvocationPatterns,
  WorkflowRunRequest,
  type WorkflowInvokeResponse,
  type WorkflowRunView,
  type WorkflowStepRecordView,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { WorkflowRunsService } from './workflow-runs.service';

@Controller()
export class WorkflowRunsController {
  constructor(private readonly runs: WorkflowRunsService) {}

  @RpcHandler(InvocationPatterns.invokeWorkflow)
  invoke(request: WorkflowRunRequest): Promise<WorkflowInvokeResponse> {
    return this.runs.invoke(request);
  }

  @RpcHandler(InvocationPatterns.getWorkflowRun)
  get(request: WorkflowRunLookupRequest): Promise<WorkflowRunView> {
    return this.runs.lookup(request.workspace_id, request.request_id);
  }

  @RpcHandler(InvocationPatterns.listWorkflowRunSteps)
  steps(request: WorkflowRunLookupRequest): Promise<WorkflowStepRecordView[]> {
    return this.runs.steps(request.workspace_id, request.request_id);
  }
}
