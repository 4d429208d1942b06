import { InvocationPatterns, type AppliedWorkflowDeployment } from '@waggle/contracts';
import { localizeDetails, WaggleException } from '@waggle/errors';
import { CommanderError, InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { confirmDestructive, yesOption } from './confirm';
import { print } from './output';

function wholeSeconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number of seconds: ${value}`);
  return parsed;
}

/** The table rows of applied workflow deployments: one per variant, as `apply` prints prompt variants. */
export function appliedWorkflowRows(applied: AppliedWorkflowDeployment[]): Array<Record<string, unknown>> {
  return applied.flatMap((deployment) =>
    deployment.variants.map((variant) => ({
      workflow: deployment.deployment,
      workflow_deployment_id: deployment.workflow_deployment_id,
      variant: variant.name,
      variant_id: variant.variant_id,
      version: variant.version,
      changed: variant.changed ? 'yes' : 'no',
      webhook_secret: deployment.webhook_secret,
    })),
  );
}

/**
 * Applies a definition file's `workflows:` list. A refused file prints each problem as
 * `field: message` (one a line, the paths of the definition format) and exits 1; with
 * `--json` the error body goes to stderr as for every other command.
 */
export async function applyWorkflows(
  call: Caller,
  workspaceId: string,
  workflows: unknown[],
  json: boolean,
): Promise<AppliedWorkflowDeployment[]> {
  try {
    return await call(InvocationPatterns.applyWorkflows, { workspace_id: workspaceId, workflows });
  } catch (error) {
    const problems =
      error instanceof WaggleException && Array.isArray(error.details)
        ? (localizeDetails(error.details, 'en') as Array<{ field?: unknown; messages?: unknown }>)
        : null;
    if (json || !problems) throw error;
    const lines = problems.flatMap((problem) =>
      (Array.isArray(problem.messages) ? problem.messages : []).map((message) => `${String(problem.field)}: ${String(message)}`),
    );
    process.stderr.write(
      `error: the workflow definitions were refused (${(error as WaggleException).code}); nothing was applied\n${lines.join('\n')}\n`,
    );
    throw new CommanderError(1, 'waggle.workflows.refused', 'the workflow definitions were refused');
  }
}

/**
 * `workflow list|versions`: a workspace's workflow deployments and every version of a
 * variant; `workflow webhook-secret show|rotate`: the secret that signs a deployment's
 * `workflow.*` callbacks.
 */
export function addWorkflowCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const workflow = program.command('workflow').description('workflow deployments of a workspace (create and change them with `apply`)');
  workflow
    .command('list <workspace-id>')
    .description("a workspace's workflow deployments, one row per variant")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const deployments = await call(InvocationPatterns.listWorkflows, { workspace_id: workspaceId });
      print(
        deployments,
        Boolean(options.json),
        deployments.flatMap((deployment) =>
          deployment.variants.map((variant) => ({
            workflow: deployment.deployment,
            workflow_deployment_id: deployment.workflow_deployment_id,
            variant: variant.name,
            version: variant.version,
            inputs: Object.keys(variant.inputs).join(','),
          })),
        ),
      );
    });
  workflow
    .command('versions <workspace-id> <deployment> <variant>')
    .description('every version of a variant, newest first (--json prints each definition)')
    .addOption(json())
    .action(async (workspaceId: string, deployment: string, variant: string, options: { json?: boolean }) => {
      const versions = await call(InvocationPatterns.listWorkflowVersions, { workspace_id: workspaceId, deployment, variant });
      print(
        versions,
        Boolean(options.json),
        versions.map((version) => ({
          version: version.version,
          version_id: version.version_id,
          current: version.current ? 'yes' : 'no',
          created_at: version.created_at,
        })),
      );
    });
  const webhookSecret = workflow
    .command('webhook-secret')
    .description("a workflow deployment's webhook secret: it signs the callbacks of its runs");
  webhookSecret
    .command('show <workspace-id> <deployment>')
    .description("a workflow deployment's current webhook secret (and the previous one during an overlap)")
    .addOption(json())
    .action(async (workspaceId: string, deployment: string, options: { json?: boolean }) => {
      const view = await call(InvocationPatterns.getWorkflowWebhookSecret, { workspace_id: workspaceId, deployment });
      print(view, Boolean(options.json), [{ ...view }]);
    });
  webhookSecret
    .command('rotate <workspace-id> <deployment>')
    .description('make a new secret; the old one keeps signing for the overlap (--overlap 0 ends it at once: asks first)')
    .option('--overlap <seconds>', 'how long the previous secret stays valid (default: the service setting)', wholeSeconds)
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, deployment: string, options: { overlap?: number; yes?: boolean; json?: boolean }) => {
      if (options.overlap === 0)
        await confirmDestructive(
          `rotate the webhook secret of workflow ${deployment} with no overlap (the current secret stops working now)`,
          options.yes,
        );
      const view = await call(InvocationPatterns.rotateWorkflowWebhookSecret, {
        workspace_id: workspaceId,
        deployment,
        overlap_seconds: options.overlap,
      });
      print(view, Boolean(options.json), [{ ...view }]);
    });
}
