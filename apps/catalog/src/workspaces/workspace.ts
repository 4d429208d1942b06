import type { AccountLanguage, PlanLimits } from '@waggle/contracts';

/** A workspace as the catalog's features use it (WorkspaceEntity is its row). */
export interface Workspace {
  id: string;
  name: string;
  planKey: string;
  language: AccountLanguage;
  /** Operator overrides of plan values; a key present with null lifts that cap. */
  limitOverrides: Partial<PlanLimits>;
  createdAt: Date;
  deletedAt: Date | null;
}

/** A workspace with its plan's values: what every answer about it needs. */
export interface WorkspaceOnPlan extends Workspace {
  planLimits: PlanLimits;
  /** The plan's `hosted_credits`. */
  planHostedCredits: boolean;
}

/** The workspace's plan values with its operator overrides applied. */
export function effectiveLimits(workspace: Pick<WorkspaceOnPlan, 'planLimits' | 'limitOverrides'>): PlanLimits {
  return { ...workspace.planLimits, ...workspace.limitOverrides };
}
