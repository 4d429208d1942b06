import { Controller } from '@nestjs/common';
import { InvocationPatterns, RepublishWebhookTargetRequest, type RepublishedWebhookTarget } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { WebhookTargetKeeper } from '@waggle/webhooks';

@Controller()
export class WebhooksController {
  constructor(private readonly targets: WebhookTargetKeeper) {}

  /** The gateway found no registry entry for a trigger: write it again if the owner exists. */
  @RpcHandler(InvocationPatterns.republishWebhookTarget)
  async republish(request: RepublishWebhookTargetRequest): Promise<RepublishedWebhookTarget> {
    return { found: await this.targets.republish(request.id) };
  }
}
