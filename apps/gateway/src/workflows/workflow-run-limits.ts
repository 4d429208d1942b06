import type { ResolvedApiKey, WorkflowRunLimits } from '@waggle/contracts';

/** The plan values a workflow run is admitted under, from the key check: the native invoke's and an MCP tool call's alike. */
export function workflowRunLimits(auth: ResolvedApiKey): WorkflowRunLimits {
  const { limits } = auth;
  return {
    concurrency: limits.workflow_concurrency,
    steps_per_run: limits.workflow_step_limit,
    tool_calls_per_day: limits.provider_tool_calls_per_day,
  };
}
