import { AgentPatterns } from '@waggle/contracts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { confirmDestructive, yesOption } from './confirm';
import { print } from './output';

function wholeSeconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError(`not a whole number of seconds: ${value}`);
  return parsed;
}

/**
 * `agent webhook-secret show|rotate`: an agent's webhook secret, as the private routes show and
 * rotate it; `agent knowledge-bases show|set`: the knowledge bases its `knowledge_search` tool searches.
 */
export function addAgentCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const agent = program.command('agent').description('agents of a workspace');
  const webhookSecret = agent
    .command('webhook-secret')
    .description("an agent's webhook secret: it authenticates the agent's triggers and signs their callbacks");
  webhookSecret
    .command('show <workspace-id> <agent-id>')
    .description("an agent's current webhook secret (and the previous one during an overlap)")
    .addOption(json())
    .action(async (workspaceId: string, agentId: string, options: { json?: boolean }) => {
      const view = await call(AgentPatterns.getWebhookSecret, { workspace_id: workspaceId, agent_id: agentId });
      print(view, Boolean(options.json), [{ ...view }]);
    });
  webhookSecret
    .command('rotate <workspace-id> <agent-id>')
    .description('make a new secret; the old one keeps working (and signing) for the overlap (--overlap 0 ends it at once: asks first)')
    .option('--overlap <seconds>', 'how long the previous secret stays valid (default: the service setting)', wholeSeconds)
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, agentId: string, options: { overlap?: number; yes?: boolean; json?: boolean }) => {
      if (options.overlap === 0)
        await confirmDestructive(
          `rotate the webhook secret of agent ${agentId} with no overlap (the current secret stops working now)`,
          options.yes,
        );
      const view = await call(AgentPatterns.rotateWebhookSecret, {
        workspace_id: workspaceId,
        agent_id: agentId,
        overlap_seconds: options.overlap,
      });
      print(view, Boolean(options.json), [{ ...view }]);
    });
  const knowledgeBases = agent.command('knowledge-bases').description("the knowledge bases an agent's knowledge_search tool searches");
  knowledgeBases
    .command('show <workspace-id> <agent-id>')
    .description('the knowledge bases attached to an agent')
    .addOption(json())
    .action(async (workspaceId: string, agentId: string, options: { json?: boolean }) => {
      const attached = await call(AgentPatterns.getKnowledgeBases, { workspace_id: workspaceId, agent_id: agentId });
      print(
        attached,
        Boolean(options.json),
        attached.knowledge_base_ids.map((id) => ({ knowledge_base_id: id })),
      );
    });
  knowledgeBases
    .command('set <workspace-id> <agent-id> [knowledge-base-ids...]')
    .description('replace the attached knowledge bases (none given: detach all)')
    .addOption(json())
    .action(async (workspaceId: string, agentId: string, knowledgeBaseIds: string[], options: { json?: boolean }) => {
      const attached = await call(AgentPatterns.setKnowledgeBases, {
        workspace_id: workspaceId,
        agent_id: agentId,
        knowledge_base_ids: knowledgeBaseIds,
      });
      print(
        attached,
        Boolean(options.json),
        attached.knowledge_base_ids.map((id) => ({ knowledge_base_id: id })),
      );
    });
}
