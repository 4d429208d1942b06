import type { PlanLimits } from '@waggle/contracts';
import { planLimits } from '../plans/plans.service';
import type { WorkspaceEntity } from './workspace.entity';

/** The workspace's plan values with its operator overrides applied. */
export function effectiveLimits(workspace: WorkspaceEntity): PlanLimits {
  return { ...planLimits(workspace.plan), ...workspace.limitOverrides };
}
