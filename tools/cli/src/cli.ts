import {
  CallbackPatterns,
  CatalogPatterns,
  DELIVERY_STATUSES,
  InvocationPatterns,
  type DeliveryStatus,
  type DeliverySummary,
  type ApplyPromptsRequest,
  type PlanLimits,
  type PlanSummary,
  type ReplyPattern,
  type StreamPattern,
  type RpcRequest,
  type RpcResponse,
  type WorkspaceSummary,
} from '@waggle/contracts';
import { Command, InvalidArgumentError, Option } from 'commander';
import { addAgentCommands } from './agent-commands';
import { addDeadLetterCommands } from './dead-letter-commands';
import { addModelPriceCommands } from './model-price-commands';
import { addRequestCommands } from './request-commands';
import { addGovernanceCommands } from './governance-commands';
import { addReleaseCommands, staged } from './release-commands';
import { addKnowledgeBaseCommands } from './knowledge-base-commands';
import { addDatasetCommands } from './dataset-commands';
import { addExperimentCommands } from './experiment-commands';
import { addMcpServerCommands, appliedMcpServerRows, applyMcpServers } from './mcp-server-commands';
import { addProviderCredentialCommands } from './provider-credential-commands';
import { addLimitOptions, limitsFromOptions } from './limit-options';
import { addWorkflowCommands, appliedWorkflowRows, applyWorkflows } from './workflow-commands';
import { confirmDestructive, yesOption } from './confirm';
import { EXIT_CODES_HELP } from './exit-codes';
import { readInputFile, readYamlFile } from './input-file';
import { formatLimit, print } from './output';

/** How the CLI reaches the catalog service; the entry point passes the NATS client. */
export type Caller = <P extends ReplyPattern>(pattern: P, payload: RpcRequest<P>) => Promise<RpcResponse<P>>;
/** Every value of a streamed pattern, collected in order (lists that come in pages), each also handed to `onValue` as it arrives. */
export type Collector = <P extends StreamPattern>(
  pattern: P,
  payload: RpcRequest<P>,
  onValue?: (value: RpcResponse<P>) => void,
) => Promise<Array<RpcResponse<P>>>;

const limitColumns = (limits: PlanLimits) => ({
  per_day: formatLimit(limits.rate_limit_per_day),
  tool_calls: formatLimit(limits.provider_tool_calls_per_day),
  concurrency: formatLimit(limits.workflow_concurrency),
  steps_per_run: formatLimit(limits.workflow_step_limit),
  storage_bytes: formatLimit(limits.asset_storage_bytes),
});
const workspaceRow = (workspace: WorkspaceSummary) => ({
  id: workspace.id,
  name: workspace.name,
  plan: workspace.plan,
  hosted_credits: workspace.hosted_credits ? 'yes' : 'no',
  language: workspace.language,
  ...limitColumns(workspace.limits),
});
const planRow = (plan: PlanSummary) => ({
  plan: plan.key,
  name: plan.name,
  hosted_credits: plan.hosted_credits ? 'yes' : 'no',
  ...limitColumns(plan.limits),
});
const deliveryRow = (delivery: DeliverySummary) => ({
  id: delivery.delivery_id,
  request_id: delivery.request_id,
  event: delivery.event_type,
  status: delivery.status,
  attempts: delivery.attempts.length,
  last_status: delivery.attempts.at(-1)?.status_code ?? delivery.attempts.at(-1)?.error ?? '',
  next_attempt_at: delivery.next_attempt_at ?? '',
});
const attemptRows = (delivery: DeliverySummary) =>
  delivery.attempts.map((attempt) => ({
    attempt: attempt.attempt,
    at: attempt.attempted_at,
    status: attempt.status_code ?? '',
    latency_ms: attempt.latency_ms,
    error: attempt.error ?? '',
  }));

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return parsed;
}

/**
 * The operator CLI: workspaces, API keys, plans, the model catalog, prompt and workflow
 * definitions, webhook secrets, the callback delivery log, dead letters and the request ledger. Every command
 * takes `--json` for scripts.
 */
export function buildCli(call: Caller, collect: Collector, modelCatalogPath: string, version: string): Command {
  const program = new Command('waggle')
    .description('Operate a Waggle installation: commands go to its services over NATS (NATS_URL)')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help (for a command: waggle <command> --help)')
    .addHelpText('after', EXIT_CODES_HELP)
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  const json = () => new Option('--json', 'print JSON for scripts');

  const workspace = program.command('workspace').description('workspaces and their plans and limits');
  workspace
    .command('create')
    .description('create a workspace and its first API key (shown once)')
    .requiredOption('--name <name>', 'display name')
    .option('--plan <plan>', 'plan key (default: developer)')
    .addOption(new Option('--language <language>', 'account language for error messages').choices(['en', 'es']))
    .addOption(json())
    .action(async (options: { name: string; plan?: string; language?: 'en' | 'es'; json?: boolean }) => {
      const created = await call(CatalogPatterns.createWorkspace, { name: options.name, plan: options.plan, language: options.language });
      if (options.json) print({ workspace_id: created.workspace.id, api_key: created.api_key.api_key }, true);
      else
        process.stdout.write(
          `workspace ${created.workspace.id} (${created.workspace.plan})\napi key   ${created.api_key.api_key}\n(the key is shown only now)\n`,
        );
    });
  workspace
    .command('list')
    .description('every workspace with its plan and limits')
    .addOption(json())
    .action(async (options: { json?: boolean }) => {
      const workspaces = await call(CatalogPatterns.listWorkspaces, {});
      print(workspaces, Boolean(options.json), workspaces.map(workspaceRow));
    });
  workspace
    .command('set-plan <workspace-id> <plan>')
    .description('move a workspace to another plan (its own limit overrides stay)')
    .addOption(json())
    .action(async (id: string, plan: string, options: { json?: boolean }) => {
      const updated = await call(CatalogPatterns.setWorkspacePlan, { workspace_id: id, plan });
      print(updated, Boolean(options.json), [workspaceRow(updated)]);
    });
  workspace
    .command('delete <workspace-id>')
    .description('delete a workspace: its API keys stop working within seconds (asks first; --yes in scripts)')
    .addOption(yesOption())
    .addOption(json())
    .action(async (id: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`delete workspace ${id}`, options.yes);
      const deleted = await call(CatalogPatterns.deleteWorkspace, { workspace_id: id });
      print(deleted, Boolean(options.json), [workspaceRow(deleted)]);
    });
  addLimitOptions(
    workspace.command('set-limits <workspace-id>').description('override plan values for one workspace').addOption(json()),
  ).action(async (id: string, options: Record<string, unknown>) => {
    const updated = await call(CatalogPatterns.setWorkspaceLimits, { workspace_id: id, ...limitsFromOptions(options) });
    print(updated, Boolean(options.json), [workspaceRow(updated)]);
  });

  const key = program.command('key').description('workspace API keys');
  key
    .command('create <workspace-id>')
    .description('create another API key for a workspace (shown once)')
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const created = await call(CatalogPatterns.createApiKey, { workspace_id: workspaceId });
      if (options.json) print(created, true);
      else process.stdout.write(`api key ${created.api_key}\n(the key is shown only now; its prefix is ${created.prefix})\n`);
    });
  key
    .command('list <workspace-id>')
    .description("a workspace's API keys: prefix, creation, last use, revocation (never the key)")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const keys = await call(CatalogPatterns.listApiKeys, { workspace_id: workspaceId });
      print(
        keys,
        Boolean(options.json),
        keys.map(({ id, prefix, created_at, last_used_at, revoked_at }) => ({ id, prefix, created_at, last_used_at, revoked_at })),
      );
    });
  key
    .command('revoke <key-prefix-or-id>')
    .description('revoke an API key: it stops working within seconds (asks first; --yes in scripts)')
    .addOption(yesOption())
    .addOption(json())
    .action(async (idOrPrefix: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`revoke API key ${idOrPrefix}`, options.yes);
      const revoked = await call(CatalogPatterns.revokeApiKey, { key: idOrPrefix });
      print(revoked, Boolean(options.json), [{ id: revoked.id, prefix: revoked.prefix, revoked_at: revoked.revoked_at }]);
    });

  const plan = program.command('plan').description('plans and their default limits');
  plan
    .command('list')
    .description('every plan with its default limits')
    .addOption(json())
    .action(async (options: { json?: boolean }) => {
      const plans = await call(CatalogPatterns.listPlans, {});
      print(plans, Boolean(options.json), plans.map(planRow));
    });
  addLimitOptions(
    plan
      .command('set <plan>')
      .description("change a plan's limits, and whether runs on the operator's provider keys draw on hosted credits")
      .addOption(
        new Option('--hosted-credits <on>', "runs on the operator's provider keys draw on the workspace's hosted credits").choices([
          'true',
          'false',
        ]),
      )
      .addOption(json()),
  ).action(async (planKey: string, options: Record<string, unknown>) => {
    const hostedCredits = options.hostedCredits === undefined ? undefined : options.hostedCredits === 'true';
    const updated = await call(CatalogPatterns.setPlanLimits, {
      plan: planKey,
      ...limitsFromOptions(options),
      hosted_credits: hostedCredits,
    });
    print(updated, Boolean(options.json), [planRow(updated)]);
  });

  const catalog = program.command('catalog').description('the model catalog');
  catalog
    .command('load')
    .description('load a model catalog file (default: the one shipped with this version); no restart needed')
    .option('--file <path>', 'catalog YAML file', modelCatalogPath)
    .option('--force', 'reload even if this version is already loaded')
    .addOption(json())
    .action(async (options: { file: string; force?: boolean; json?: boolean }) => {
      const result = await call(CatalogPatterns.loadModels, { yaml: await readInputFile(options.file), force: Boolean(options.force) });
      if (options.json) print(result, true);
      else
        process.stdout.write(
          result.loaded
            ? `loaded catalog ${result.version}: ${result.model_count} models, ${result.listed_count} listed\n`
            : `catalog ${result.version} is already loaded (use --force to reload)\n`,
        );
    });

  program
    .command('apply')
    .description(
      'create or update the MCP servers, prompt and workflow deployments of a definition file (applying it twice changes nothing); MCP servers are applied first, then prompts, as workflow steps may use both',
    )
    .requiredOption(
      '-f, --file <path>',
      'YAML file with a top-level `mcp_servers:` list, a `prompts:` list, a `workflows:` list, or any of them',
    )
    .requiredOption('--workspace <workspace-id>', 'the workspace the definitions belong to')
    .option('--stage', 'record every changed prompt variant as a new version without serving it (promote it with `release promote`)')
    .addOption(json())
    .action(async (options: { file: string; workspace: string; stage?: boolean; json?: boolean }) => {
      const document = await readYamlFile<{
        mcp_servers?: unknown;
        prompts?: ApplyPromptsRequest['prompts'];
        workflows?: unknown;
      } | null>(options.file);
      const hasMcpServers = document?.mcp_servers !== undefined;
      const hasWorkflows = document?.workflows !== undefined;
      const mcpServers = hasMcpServers ? await applyMcpServers(call, options.workspace, document?.mcp_servers) : [];
      if (hasMcpServers && document?.prompts === undefined && !hasWorkflows)
        return print(options.json ? { mcp_servers: mcpServers } : mcpServers, Boolean(options.json), appliedMcpServerRows(mcpServers));
      const applied =
        (hasWorkflows || hasMcpServers) && document?.prompts === undefined
          ? []
          : await call(InvocationPatterns.applyPrompts, {
              workspace_id: options.workspace,
              prompts: options.stage ? staged(document?.prompts ?? []) : (document?.prompts ?? []),
            });
      const promptRows = applied.flatMap((deployment) =>
        deployment.variants.map((variant) => ({
          deployment: deployment.deployment,
          prompt_endpoint_id: deployment.prompt_endpoint_id,
          variant: variant.name,
          variant_id: variant.variant_id,
          version: variant.version,
          changed: variant.changed ? 'yes' : 'no',
          ...(variant.staged && { staged: variant.protected ? 'yes (protected)' : 'yes', deployed_version: variant.deployed_version }),
          webhook_secret: deployment.webhook_secret,
        })),
      );
      if (hasMcpServers && !options.json) print(mcpServers, false, appliedMcpServerRows(mcpServers));
      // A prompt-only file keeps its original output: scripts parse it.
      if (!hasWorkflows) {
        if (hasMcpServers)
          return print(options.json ? { mcp_servers: mcpServers, prompts: applied } : applied, Boolean(options.json), promptRows);
        return print(applied, Boolean(options.json), promptRows);
      }
      const workflows = await applyWorkflows(call, options.workspace, document?.workflows as unknown[], Boolean(options.json));
      if (options.json) return print({ ...(hasMcpServers ? { mcp_servers: mcpServers } : {}), prompts: applied, workflows }, true);
      if (promptRows.length > 0) print(applied, false, promptRows);
      print(workflows, false, appliedWorkflowRows(workflows));
    });

  const webhookSecret = program
    .command('webhook-secret')
    .description("a prompt deployment's webhook secret: it authenticates triggers and signs callbacks");
  webhookSecret
    .command('show <workspace-id> <deployment>')
    .description("a prompt deployment's current webhook secret (and the previous one during an overlap)")
    .addOption(json())
    .action(async (workspaceId: string, deployment: string, options: { json?: boolean }) => {
      const view = await call(InvocationPatterns.getWebhookSecret, { workspace_id: workspaceId, deployment });
      print(view, Boolean(options.json), [{ ...view }]);
    });
  webhookSecret
    .command('rotate <workspace-id> <deployment>')
    .description('make a new secret; the old one keeps working (and signing) for the overlap (--overlap 0 ends it at once: asks first)')
    .option('--overlap <seconds>', 'how long the previous secret stays valid (default: the service setting)', positiveInteger)
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, deployment: string, options: { overlap?: number; yes?: boolean; json?: boolean }) => {
      if (options.overlap === 0)
        await confirmDestructive(
          `rotate the webhook secret of ${deployment} with no overlap (the current secret stops working now)`,
          options.yes,
        );
      const view = await call(InvocationPatterns.rotateWebhookSecret, {
        workspace_id: workspaceId,
        deployment,
        overlap_seconds: options.overlap,
      });
      print(view, Boolean(options.json), [{ ...view }]);
    });

  const delivery = program.command('delivery').description('the callback delivery log');
  delivery
    .command('list <workspace-id>')
    .description("a workspace's callback deliveries, newest first")
    .option('--request-id <request-id>', 'only the callback of this request')
    .addOption(new Option('--status <status>', 'only deliveries in this state').choices(DELIVERY_STATUSES))
    .option('--limit <n>', 'at most this many, newest first', positiveInteger)
    .addOption(json())
    .action(async (workspaceId: string, options: { requestId?: string; status?: DeliveryStatus; limit?: number; json?: boolean }) => {
      const deliveries = await call(CallbackPatterns.listDeliveries, {
        workspace_id: workspaceId,
        request_id: options.requestId,
        status: options.status,
        limit: options.limit,
      });
      print(deliveries, Boolean(options.json), deliveries.map(deliveryRow));
    });
  delivery
    .command('show <workspace-id> <delivery-id>')
    .description('a delivery and every attempt')
    .addOption(json())
    .action(async (workspaceId: string, deliveryId: string, options: { json?: boolean }) => {
      const found = await call(CallbackPatterns.getDelivery, { workspace_id: workspaceId, delivery_id: deliveryId });
      print(found, Boolean(options.json), [deliveryRow(found)]);
      if (!options.json) print(found.attempts, false, attemptRows(found));
    });
  delivery
    .command('redeliver <workspace-id> <delivery-id>')
    .description('send the same callback again (same webhook-id) with a fresh retry budget')
    .addOption(json())
    .action(async (workspaceId: string, deliveryId: string, options: { json?: boolean }) => {
      const queued = await call(CallbackPatterns.redeliver, { workspace_id: workspaceId, delivery_id: deliveryId });
      print(queued, Boolean(options.json), [deliveryRow(queued)]);
    });

  addAgentCommands(program, call);
  addKnowledgeBaseCommands(program, call, collect);
  addMcpServerCommands(program, call);
  addProviderCredentialCommands(program, call);
  addWorkflowCommands(program, call);
  addDeadLetterCommands(program, call);
  addRequestCommands(program, call, collect);
  addGovernanceCommands(program, call);
  addReleaseCommands(program, call);
  addModelPriceCommands(program, call);
  addDatasetCommands(program, call);
  addExperimentCommands(program, call);

  return program;
}
