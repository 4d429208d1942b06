import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ApplyPromptsRequest, InvocationPatterns, type AppliedDeployment } from '@waggle/contracts';
import { PromptsService } from './prompts.service';

@Controller()
export class PromptsController {
  constructor(private readonly prompts: PromptsService) {}

  @MessagePattern(InvocationPatterns.applyPrompts)
  apply(@Payload() request: ApplyPromptsRequest): Promise<AppliedDeployment[]> {
    return this.prompts.apply(request);
  }
}
