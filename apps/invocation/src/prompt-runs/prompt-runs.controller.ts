import { Controller } from '@nestjs/common';
import { InvocationPatterns, PromptRunRequest, type PromptInvokeResponse, type PromptStreamEvent } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import type { Observable } from 'rxjs';
import { PromptRunner } from './prompt-runner.service';

@Controller()
export class PromptRunsController {
  constructor(private readonly prompts: PromptRunner) {}

  @RpcHandler(InvocationPatterns.invokePrompt)
  invoke(request: PromptRunRequest): Promise<PromptInvokeResponse> {
    return this.prompts.invoke(request);
  }

  @RpcHandler(InvocationPatterns.streamPrompt)
  stream(request: PromptRunRequest): Observable<PromptStreamEvent> {
    return this.prompts.stream(request);
  }
}
