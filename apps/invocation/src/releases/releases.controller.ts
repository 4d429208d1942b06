import { Controller } from '@nestjs/common';
import {
  PromoteReleaseRequest,
  ReleaseLabelRequest,
  ReleasePatterns,
  ReleaseVariantRequest,
  ResolveTriggerVersionRequest,
  RollbackReleaseRequest,
  SetReleaseLabelRequest,
  SetReleaseProtectionRequest,
  type ReleaseHistoryEntry,
  type ReleaseMove,
  type ReleaseProtection,
  type TriggerVersion,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { ReleasesService } from './releases.service';

@Controller()
export class ReleasesController {
  constructor(private readonly releases: ReleasesService) {}

  @RpcHandler(ReleasePatterns.history)
  history(request: ReleaseVariantRequest): Promise<ReleaseHistoryEntry[]> {
    return this.releases.history(request.workspace_id, request.deployment, request.variant);
  }

  @RpcHandler(ReleasePatterns.setLabel)
  setLabel(request: SetReleaseLabelRequest): Promise<ReleaseMove> {
    return this.releases.setLabel(request.workspace_id, request.deployment, request.variant, request.label, request.version);
  }

  @RpcHandler(ReleasePatterns.deleteLabel)
  deleteLabel(request: ReleaseLabelRequest): Promise<ReleaseMove> {
    return this.releases.deleteLabel(request.workspace_id, request.deployment, request.variant, request.label);
  }

  @RpcHandler(ReleasePatterns.promote)
  promote(request: PromoteReleaseRequest): Promise<ReleaseMove> {
    return this.releases.promote(request);
  }

  @RpcHandler(ReleasePatterns.rollback)
  rollback(request: RollbackReleaseRequest): Promise<ReleaseMove> {
    return this.releases.rollback(request);
  }

  @RpcHandler(ReleasePatterns.getProtection)
  protection(request: ReleaseVariantRequest): Promise<ReleaseProtection> {
    return this.releases.protection(request.workspace_id, request.deployment, request.variant);
  }

  @RpcHandler(ReleasePatterns.setProtection)
  protect(request: SetReleaseProtectionRequest): Promise<ReleaseProtection> {
    return this.releases.protect(request);
  }

  @RpcHandler(ReleasePatterns.resolveTrigger)
  triggerVersion(request: ResolveTriggerVersionRequest): Promise<TriggerVersion> {
    return this.releases.triggerVersion(request);
  }
}
