import { Controller } from '@nestjs/common';
import { InvocationPatterns, RequestLookupRequest, type CancelledRun } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { RunCanceller } from './run-canceller';

@Controller()
export class RunCancellationController {
  constructor(private readonly canceller: RunCanceller) {}

  @RpcHandler(InvocationPatterns.cancelRequest)
  cancel(request: RequestLookupRequest): Promise<CancelledRun> {
    return this.canceller.cancel(request.workspace_id, request.request_id);
  }
}
