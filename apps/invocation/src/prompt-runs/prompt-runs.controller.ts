import { Controller } from '@nestjs/common';
import {
  InvocationPatterns,
  PromptRunRequest,
  type AcceptedRun,
  type PromptInvokeResponse,
  type PromptStreamEvent,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { RunEventLog } from '@waggle/runs';
import type { Observable } from 'rxjs';
import { BackgroundPromptRuns } from './background-prompt-runs';
import { PromptRunner } from './prompt-runner.service';

@Controller()
export class PromptRunsController {
  constructor(
    private readonly prompts: PromptRunner,
    private readonly background: BackgroundPromptRuns,
    private readonly runEvents: RunEventLog,
  ) {}

  @RpcHandler(InvocationPatterns.invokePrompt)
  invoke(request: PromptRunRequest): Promise<PromptInvokeResponse> {
    return this.prompts.invoke(request);
  }

  @RpcHandler(InvocationPatterns.acceptPrompt)
  accept(request: PromptRunRequest): Promise<AcceptedRun> {
    return this.background.accept(request);
  }

  /** A background or idempotent stream's events are also kept (RunEventLog), so its client can resume or replay it. */
  @RpcHandler(InvocationPatterns.streamPrompt)
  stream(request: PromptRunRequest): Observable<PromptStreamEvent> {
    const events = this.prompts.stream(request);
    return request.keep_events_ms === undefined
      ? events
      : this.runEvents.record(request.request_id, request.workspace_id, events, request.keep_events_ms);
  }
}
