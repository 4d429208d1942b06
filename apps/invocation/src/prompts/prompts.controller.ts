import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ApplyPromptsRequest,
  InvocationPatterns,
  PromptVersionsRequest,
  WorkspaceIdRequest,
  type AppliedDeployment,
  type PromptDeploymentSummary,
  type PromptVersionSummary,
} from '@waggle/contracts';
import { PromptsService } from './prompts.service';

@Controller()
export class PromptsController {
  constructor(private readonly prompts: PromptsService) {}

  @MessagePattern(InvocationPatterns.listPrompts)
  list(@Payload() request: WorkspaceIdRequest): Promise<PromptDeploymentSummary[]> {
    return this.prompts.list(request.workspace_id);
  }

  @MessagePattern(InvocationPatterns.listPromptVersions)
  versions(@Payload() request: PromptVersionsRequest): Promise<PromptVersionSummary[]> {
    return this.prompts.versions(request.workspace_id, request.deployment, request.variant);
  }

  @MessagePattern(InvocationPatterns.applyPrompts)
  apply(@Payload() request: ApplyPromptsRequest): Promise<AppliedDeployment[]> {
    return this.prompts.apply(request);
  }
}
