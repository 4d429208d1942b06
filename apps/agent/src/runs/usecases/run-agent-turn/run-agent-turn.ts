import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AgentRunRequest } from '@waggle/contracts';
import type { DocumentReader } from '@waggle/documents';
import { WaggleException } from '@waggle/errors';
import { APP_ENV } from '@waggle/platform';
import {
  ModelRoutes,
  ModelRun,
  ProviderRegistry,
  providerFailure,
  resolveModelChain,
  type PromptParams,
  type ReasoningEffort,
} from '@waggle/providers';
import { LedgerPublisher, runCredentials, type TrackedRun } from '@waggle/runs';
import { WorkspaceCredentials } from '../../../provider-credentials/workspace-credentials';
import { RunnableAgents, type RunnableAgent } from '../../../agents/runnable-agents';
import type { AgentEnv } from '../../../config/agent.env';
import type { FinishedTurn } from '../../../threads/thread-turns';
import { ThreadsRepository } from '../../../threads/threads.repository';
import { runTools } from '../../agent-tools';
import { buildConversation, checkRunAttachments, hasImages, readableDocuments, type CheckedRunInput } from '../../conversation';
import { DOCUMENT_READER } from '../../document-reader.provider';
import { AgentKnowledgeSearch } from '../../knowledge-search';
import { WorkspaceMcpTools } from '../../../mcp-tools/mcp-tools.service';
import { AgentTurnLedger } from './agent-turn-ledger';
import { streamedTurns, wholeTurns } from './model-turns';
import { ToolLoop, type LoopResult, type ToolLoopInput, type TurnListener } from './tool-loop';

/**
 * What one agent turn runs on: the workspace's agent, the caller's message with its
 * attachments and history, the thread it continues (if any), and the run's request id, under
 * which the ledger records it. An invoke, a stream, a webhook trigger and a background run each
 * build one; so can any other caller that runs an agent (a scheduled or an experiment run).
 */
export type AgentTurnInput = Pick<
  AgentRunRequest,
  | 'workspace_id'
  | 'request_id'
  | 'agent'
  | 'message'
  | 'thread_id'
  | 'messages'
  | 'attachments'
  | 'image_urls'
  | 'metadata'
  | 'user'
  | 'surface'
>;

export interface AgentTurnOptions {
  /** The run as RunCancellation tracks it: a cancel request stops the turn between model turns and tool calls. */
  tracked: Pick<TrackedRun, 'signal' | 'cancelled'>;
  /** Stops the turn too, as a failure: a run no client waits for has a time limit of its own. */
  deadline?: AbortSignal;
  /**
   * Streams the turn to this listener as it comes (text fragments, tool calls); without it, each
   * model turn is answered whole. A streamed turn stopped by anything but a cancel request has
   * lost its client: it is recorded cancelled, silently (`disconnected`).
   */
  stream?: TurnListener;
}

/** What is known of a turn once it is prepared, whatever its end. */
interface TurnFacts {
  /** The agent's name, as the run's span names it. */
  agentName: string;
  /** The thread's id, for a threaded turn. */
  threadId?: string;
  /** The model that answered last (a fallback's id once one has, D41), and its provider. */
  model: string;
  provider: string;
}

/** How a prepared turn ended. A refusal before that is thrown: no model was called and the ledger has no record of it. */
export type AgentTurnOutcome = TurnFacts &
  (
    | {
        status: 'completed';
        result: LoopResult;
        /** When the model was first called (Date.now()): a stream's usage event counts its duration from it. */
        startedAt: number;
      }
    | { status: 'cancelled' }
    | { status: 'disconnected' }
    | { status: 'failed'; failure: WaggleException }
  );

/** A turn past every refusal, ready to call the model. */
interface PreparedTurn {
  input: AgentTurnInput;
  agent: RunnableAgent;
  /** The agent's model and its fallbacks: once one has answered a model turn, later ones start with it (D41). */
  models: ModelRun;
  loop: ToolLoopInput;
  thread?: { id: string; key: string };
  checked: CheckedRunInput;
  ledger: AgentTurnLedger;
}

/** The spec's efforts past `high` go to the providers as their highest. */
function toReasoningEffort(effort: RunnableAgent['reasoningEffort']): ReasoningEffort | undefined {
  if (effort === null) return undefined;
  return effort === 'xhigh' || effort === 'max' ? 'high' : effort;
}

function toParams(agent: RunnableAgent): PromptParams {
  const ttl = agent.providerPromptCacheTtl;
  return {
    ...(agent.responseFormat && { responseFormat: agent.responseFormat }),
    ...(agent.temperature !== null && { temperature: agent.temperature }),
    ...(agent.maxToken !== null && { maxOutputTokens: agent.maxToken }),
    ...(agent.maxThinkingToken !== null && { thinkingBudget: agent.maxThinkingToken }),
    ...(agent.reasoningEffort !== null && { reasoningEffort: toReasoningEffort(agent.reasoningEffort) }),
    ...(ttl !== null && ttl !== 'disabled' && { promptCache: { ttl } }),
  };
}

/** The turn as its thread keeps it: the caller's message with its attachments, and the answer. */
function finishedTurn(turn: PreparedTurn, threadId: string, result: LoopResult): FinishedTurn {
  const { documents, images } = turn.checked.current;
  return {
    threadId,
    requestId: turn.input.request_id,
    message: turn.input.message,
    attachments: [...documents, ...images].map(({ url, kind, name }) => ({ url, kind, name })),
    response: result.response,
    toolCalls: result.toolCalls,
  };
}

/**
 * Runs one turn of an agent: everything that can be refused (the agent, attachments, vision,
 * documents the model cannot read) is refused before a model is called; then model turns with
 * the run's tools until the model answers (ToolLoop); a threaded turn is stored in its thread
 * before its answer is given; the ledger records the turn however it ends (AgentTurnLedger).
 */
@Injectable()
export class RunAgentTurn {
  private readonly logger = new Logger(RunAgentTurn.name);

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly publisher: LedgerPublisher,
    private readonly agents: RunnableAgents,
    private readonly threads: ThreadsRepository,
    @Inject(DOCUMENT_READER) private readonly reader: DocumentReader,
    private readonly knowledge: AgentKnowledgeSearch,
    private readonly mcpTools: WorkspaceMcpTools,
    private readonly credentials: WorkspaceCredentials,
    @Inject(APP_ENV) private readonly env: AgentEnv,
  ) {}

  async run(input: AgentTurnInput, options: AgentTurnOptions): Promise<AgentTurnOutcome> {
    const turn = await this.prepare(input);
    const { tracked, deadline, stream } = options;
    const signal = deadline ? AbortSignal.any([tracked.signal, deadline]) : tracked.signal;
    const facts = (): TurnFacts => ({
      agentName: turn.agent.name,
      ...(turn.thread && { threadId: turn.thread.id }),
      model: turn.models.route.modelId,
      provider: turn.models.route.provider,
    });
    const startedAt = Date.now();
    const loop = new ToolLoop(turn.loop);
    let result: LoopResult;
    try {
      result = await loop.run(stream ? streamedTurns(turn.models, stream) : wholeTurns(turn.models), stream ?? {}, signal);
    } catch (error) {
      const durationMs = Date.now() - startedAt;
      if (tracked.cancelled) {
        turn.ledger.cancelled(durationMs, loop.usage, turn.models);
        return { ...facts(), status: 'cancelled' };
      }
      if (stream && tracked.signal.aborted) {
        turn.ledger.disconnected(durationMs, turn.models);
        return { ...facts(), status: 'disconnected' };
      }
      const failure = error instanceof WaggleException ? error : providerFailure(error, turn.models.route);
      turn.ledger.failed(durationMs, failure, turn.models);
      return { ...facts(), status: 'failed', failure };
    }
    // The answer is complete: it is stored and recorded even if a streaming client has gone.
    if (turn.thread) {
      try {
        await this.threads.appendTurn(finishedTurn(turn, turn.thread.id, result));
      } catch (error) {
        this.logger.error({ err: error, request_id: input.request_id }, 'an agent turn could not be stored in its thread');
        const failure = new WaggleException('agent_completion_persistence_failed');
        turn.ledger.notStored(Date.now() - startedAt, failure, turn.models);
        return { ...facts(), status: 'failed', failure };
      }
    }
    turn.ledger.completed(Date.now() - startedAt, result, turn.models, turn.thread?.key);
    return { ...facts(), status: 'completed', result, startedAt };
  }

  private async prepare(input: AgentTurnInput): Promise<PreparedTurn> {
    const agent =
      input.surface === 'openai'
        ? await this.agents.getActiveByIdOrName(input.workspace_id, input.agent)
        : await this.agents.getActive(input.workspace_id, input.agent);
    const checked = checkRunAttachments(input);
    const chain = await resolveModelChain(
      this.routes,
      this.registry,
      agent.llmModel,
      agent.fallbacks,
      { images: hasImages(checked) },
      runCredentials(agent.credentials, input.workspace_id, this.credentials.lookup),
    );
    const catalogRoute = chain.catalog;

    // `thread_id: null` (as clients send an unset field) is no thread, like an absent one.
    const threadKey = input.thread_id ?? undefined;
    const thread = threadKey === undefined ? undefined : await this.threads.open(input.workspace_id, agent.id, threadKey);
    const stored = thread?.turns ?? [];
    const documents = readableDocuments(checked, stored);
    if (documents.length > 0 && !catalogRoute.is_tool_calling) {
      const reason = `${catalogRoute.name} cannot call tools, so it cannot read attached documents`;
      throw new WaggleException('validation_error', {
        detail: 'model_cannot_read_documents',
        params: { model: catalogRoute.name },
        details: [{ field: 'attachments', messages: [reason] }],
      });
    }
    const conversation = buildConversation({
      instructionPrompt: agent.instructionPrompt,
      documents,
      stored,
      callerMessages: input.messages ?? [],
      checked,
      message: input.message,
      contextLimit: catalogRoute.context_limit,
      answerTokens: agent.maxToken ?? this.env.AGENT_ANSWER_RESERVE_TOKENS,
    });
    if (conversation.omittedTurns > 0)
      this.logger.log({
        msg: 'thread windowed to the model context',
        request_id: input.request_id,
        omitted_turns: conversation.omittedTurns,
      });

    // A model that cannot call tools is offered none; otherwise each MCP server is listed live.
    const mcp =
      agent.mcp && agent.mcp.length > 0 && catalogRoute.is_tool_calling
        ? await this.mcpTools.offer(input.workspace_id, agent.mcp, input.request_id)
        : undefined;
    const ledger = new AgentTurnLedger(this.publisher, input, agent.id, catalogRoute.id);
    return {
      input,
      agent,
      models: new ModelRun(this.registry, chain.routes),
      loop: {
        messages: conversation.messages,
        params: toParams(agent),
        tools: runTools(
          this.reader,
          documents,
          agent.knowledgeBaseIds.length > 0 && catalogRoute.is_tool_calling
            ? this.knowledge.searcher(input.workspace_id, agent.knowledgeBaseIds)
            : undefined,
          mcp,
        ),
        toolChoice: agent.toolChoice ?? 'auto',
        maxToolCalls: agent.maxToolCalls ?? this.env.AGENT_DEFAULT_MAX_TOOL_CALLS,
      },
      ...(thread && threadKey !== undefined && { thread: { id: thread.threadId, key: threadKey } }),
      checked,
      ledger,
    };
  }
}
