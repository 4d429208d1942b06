import { Inject, Injectable, Logger } from '@nestjs/common';
import type {
  AgentInvokeResponse,
  AgentRunRequest,
  AgentStreamEvent,
  AgentToolCallView,
  AgentTriggerJob,
  RunStatus,
} from '@waggle/contracts';
import type { DocumentReader } from '@waggle/documents';
import { streamErrorEvent, WaggleException } from '@waggle/errors';
import { APP_ENV } from '@waggle/platform';
import { CANCELLED_RUN_DATA, LedgerPublisher, LedgerRun, RunCancellation, runCancelledError, type TrackedRun } from '@waggle/runs';
import {
  addUsage,
  ModelRoutes,
  ModelRun,
  type CompletionResult,
  ProviderRegistry,
  providerFailure,
  resolveModelChain,
  toolResultsMessage,
  ZERO_USAGE,
  type PromptCall,
  type PromptMessage,
  type PromptParams,
  type ReasoningEffort,
  type SpecUsage,
  type StopReason,
  type ToolCall,
  type ToolChoice,
  type ToolResult,
} from '@waggle/providers';
import { failSpan, inSpan, markSpanFailed, startSpan } from '@waggle/telemetry';
import type { Span } from '@opentelemetry/api';
import { Observable } from 'rxjs';
import type { AgentEnv } from '../config/agent.env';
import type { StoredAttachment } from '../threads/entities';
import { runTools, type RunTools, type ToolOutcome } from './agent-tools';
import { AgentKnowledgeSearch } from './knowledge-search';
import { buildConversation, checkRunAttachments, readableDocuments, type CheckedRunInput } from './conversation';
import { DOCUMENT_READER } from './document-reader.provider';
import { RunnableAgents } from './runnable-agents';
import { RunsRepository, type RunnableAgent, type ToolCallRecord } from './runs.repository';

interface PreparedRun {
  request: AgentRunRequest;
  agent: RunnableAgent;
  /** The agent's model and its fallbacks: once one has answered a turn, later turns start with it (D41). */
  models: ModelRun;
  messages: PromptMessage[];
  params: PromptParams;
  tools: RunTools;
  maxToolCalls: number;
  thread?: { id: string; key: string };
  checked: CheckedRunInput;
  ledger: LedgerRun;
  /** The usage of the model turns finished so far: a cancelled run's partial usage. */
  used: SpecUsage;
}

/** One model turn's result, whole or streamed. */
type TurnOutcome = Omit<CompletionResult, 'model' | 'attempts'>;

/** What the loop reports as it goes (the stream's events). */
interface LoopListener {
  fragment?(kind: 'reasoning' | 'response', text: string): void;
  /** A text kind ended (another kind, a tool call or the turn's end follows). */
  textDone?(kind: 'reasoning' | 'response'): void;
  tool?(record: ToolCallRecord, input: unknown, toolType: string): void;
}

interface LoopResult {
  response: string;
  reasoning: string;
  usage: SpecUsage;
  stopReason: StopReason;
  toolCalls: ToolCallRecord[];
}

/**
 * Runs one tool call in its span (GenAI `execute_tool`), active while the tool runs so what it
 * calls (knowledge_search's NATS request) is its child. A tool's error observation (the model
 * reads it and goes on) gives the span ERROR status, as a thrown failure does.
 */
function runTool(tools: RunTools, call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.toolName,
    'gen_ai.tool.call.id': call.toolCallId,
    // Every tool an agent run executes is one of Waggle's own functions.
    'gen_ai.tool.type': 'function',
  };
  return inSpan(`execute_tool ${call.toolName}`, attributes, async (span) => {
    const outcome = await tools.run(call, signal);
    if (outcome.isError) {
      span.setAttribute('error.type', 'tool_error');
      markSpanFailed(span, undefined);
    }
    return outcome;
  });
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

const seconds = (ms: number) => Math.round(ms) / 1000;
const json = (value: unknown) => JSON.stringify(value ?? null);

/**
 * A run's span (GenAI `invoke_agent`), started before the agent is read so a refusal is on it
 * too: named after the agent once it is known (agentNamed).
 */
function startRunSpan(request: AgentRunRequest): ReturnType<typeof startSpan> {
  return startSpan('invoke_agent', {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.id': request.agent,
    'waggle.agent.run.id': request.request_id,
  });
}

/** The run's span gets the agent's name (and the thread, for a threaded run) once the run is prepared. */
function agentNamed(span: Span, run: PreparedRun): void {
  span.updateName(`invoke_agent ${run.agent.name}`);
  span.setAttribute('gen_ai.agent.name', run.agent.name);
  if (run.thread) span.setAttribute('gen_ai.conversation.id', run.thread.id);
}

/**
 * Runs agents: everything that can be refused (agent, attachments, vision, configuration) is
 * refused before the model is called; then model turns with the run's tools until the model
 * answers, at most `max_tool_calls` tool calls, the last turn with tools forbidden. A threaded
 * run's turn is stored before its answer is given; the ledger records every run.
 */
@Injectable()
export class AgentRunner {
  private readonly logger = new Logger(AgentRunner.name);

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly ledger: LedgerPublisher,
    private readonly cancellation: RunCancellation,
    private readonly runs: RunsRepository,
    private readonly agents: RunnableAgents,
    @Inject(DOCUMENT_READER) private readonly reader: DocumentReader,
    private readonly knowledge: AgentKnowledgeSearch,
    @Inject(APP_ENV) private readonly env: AgentEnv,
  ) {}

  /** A whole run (sync, a trigger's, a workflow step's); a cancel stops it (409 run_cancelled) between model turns and tool calls. */
  async invoke(request: AgentRunRequest, abortSignal?: AbortSignal): Promise<AgentInvokeResponse> {
    return this.cancellation.tracking(request.request_id, (tracked) => {
      const { span, run } = startRunSpan(request);
      return run(() => this.invokeTracked(request, tracked, span, abortSignal)).then(
        (answer) => {
          span.setAttribute('waggle.agent.run.status', 'completed');
          span.end();
          return answer;
        },
        (error: unknown) => {
          // A cancel is the caller's choice, not a failure of the run.
          span.setAttribute('waggle.agent.run.status', tracked.cancelled ? 'cancelled' : 'failed');
          if (tracked.cancelled) span.end();
          else failSpan(span, error);
          throw error;
        },
      );
    });
  }

  private async invokeTracked(
    request: AgentRunRequest,
    tracked: TrackedRun,
    span: Span,
    abortSignal?: AbortSignal,
  ): Promise<AgentInvokeResponse> {
    const run = await this.prepare(request);
    agentNamed(span, run);
    const started = Date.now();
    let result: LoopResult;
    try {
      result = await this.loop(
        run,
        (call) => this.completeTurn(run, call),
        {},
        abortSignal ? AbortSignal.any([tracked.signal, abortSignal]) : tracked.signal,
      );
    } catch (error) {
      if (tracked.cancelled) {
        this.cancelled(run, started);
        throw runCancelledError(request.request_id);
      }
      throw this.failed(run, error, started);
    }
    await this.complete(run, result, started);
    return {
      request_id: request.request_id,
      response: result.response,
      ...(typeof request.thread_id === 'string' && { thread_id: request.thread_id }),
      model: run.models.route.modelId,
      usage: result.usage,
      tool_calls: result.toolCalls.map((call): AgentToolCallView => ({
        tool_name: call.toolName,
        tool_input: json(call.input),
        observation: call.observation,
      })),
    };
  }

  /**
   * The run as events. Refusals end the observable with the error before any event (the
   * gateway answers them as JSON); a provider failure afterwards is one `error` event. When
   * the client leaves, the run is cancelled silently: no event, no failed run, no usage,
   * unless the answer was already complete and recorded. The run's span ends when the run
   * settles, whether the stream ended, failed or was left (the client's leaving aborts the run).
   */
  stream(request: AgentRunRequest): Observable<AgentStreamEvent> {
    return new Observable<AgentStreamEvent>((subscriber) => {
      const tracked = this.cancellation.track(request.request_id);
      const { span, run: inRunSpan } = startRunSpan(request);
      let status: RunStatus = 'failed';
      /** The failure the stream ended with (an error event), for the span. */
      let failure: WaggleException | undefined;
      const emit = (event: AgentStreamEvent) => {
        if (!tracked.signal.aborted) subscriber.next(event);
      };
      const execute = async () => {
        const run = await this.prepare(request);
        agentNamed(span, run);
        const started = Date.now();
        // The model that answered: a fallback's id once one has (nothing is sent before a model answers).
        const model = () => run.models.route.modelId;
        const listener: LoopListener = {
          fragment: (kind, text) => emit({ request_id: request.request_id, type: kind, model: model(), response: text, done: false }),
          textDone: (kind) => emit({ request_id: request.request_id, type: kind, model: model(), response: '', done: true }),
          tool: (record, input, toolType) =>
            emit({
              request_id: request.request_id,
              type: 'tool',
              tool_id: record.toolCallId,
              tool: record.toolName,
              tool_type: toolType,
              tool_input:
                input !== null && typeof input === 'object' && !Array.isArray(input)
                  ? (input as Record<string, unknown>)
                  : { value: input },
              observation: record.observation,
            }),
        };
        let result: LoopResult;
        try {
          result = await this.loop(run, (call) => this.streamTurn(run, call, listener), listener, tracked.signal);
        } catch (error) {
          if (tracked.cancelled) {
            // A cancel: the caller hears it, then the stream ends.
            this.cancelled(run, started);
            status = 'cancelled';
            subscriber.next(streamErrorEvent(request.request_id, runCancelledError(request.request_id)));
            return;
          }
          if (tracked.signal.aborted) {
            // The client left before the answer was complete: a cancellation, silently.
            run.ledger.finish('cancelled', Date.now() - started, null, null, run.models.route.modelId);
            status = 'cancelled';
            return;
          }
          failure = this.failed(run, error, started);
          emit(streamErrorEvent(request.request_id, failure, failure.code === 'provider_error' ? run.models.route.provider : undefined));
          return;
        }
        // The answer is complete: it is recorded (and its usage counted) even if the client has gone.
        try {
          await this.complete(run, result, started);
        } catch (error) {
          failure = error instanceof WaggleException ? error : new WaggleException('agent_completion_persistence_failed');
          emit(streamErrorEvent(request.request_id, failure));
          return;
        }
        status = 'completed';
        emit({
          request_id: request.request_id,
          type: 'usage',
          usage: { ...result.usage, duration: seconds(Date.now() - started) },
          stop_reason: result.stopReason,
        });
      };
      inRunSpan(execute)
        .finally(() => tracked.done(status))
        .then(
          () => {
            span.setAttribute('waggle.agent.run.status', status);
            if (failure) failSpan(span, failure);
            else span.end();
            subscriber.complete();
          },
          (error: unknown) => {
            failSpan(span, error);
            subscriber.error(error);
          },
        );
      return () => tracked.done();
    });
  }

  /** A webhook trigger's (or background invoke's) run: no client waits, so it has a time limit of its own. */
  async invokeTriggered(job: AgentTriggerJob): Promise<AgentInvokeResponse> {
    const request: AgentRunRequest = {
      workspace_id: job.workspace_id,
      request_id: job.request_id,
      agent: job.agent_id,
      message: job.message,
      ...(job.thread_id !== null && { thread_id: job.thread_id }),
      metadata: job.metadata,
      ...(job.user !== null && { user: job.user }),
      ...(job.messages !== undefined && { messages: job.messages }),
      ...(job.attachments !== undefined && { attachments: job.attachments }),
      ...(job.image_urls !== undefined && { image_urls: job.image_urls }),
    };
    return this.invoke(request, AbortSignal.timeout(this.env.AGENT_TRIGGER_TIMEOUT_MS));
  }

  private async prepare(request: AgentRunRequest): Promise<PreparedRun> {
    const agent = await this.agents.get(request.workspace_id, request.agent);
    if (!agent) throw new WaggleException('resource_not_found', { status: 422, detail: 'agent_not_found' });
    const checked = checkRunAttachments(request);
    const images = checked.current.images.length + checked.history.reduce((sum, message) => sum + message.images.length, 0);
    const chain = await resolveModelChain(this.routes, this.registry, agent.llmModel, agent.fallbacks, { images: images > 0 });
    const catalogRoute = chain.catalog;

    // `thread_id: null` (as clients send an unset field) is no thread, like an absent one.
    const threadKey = request.thread_id ?? undefined;
    const thread = threadKey === undefined ? undefined : await this.runs.openThread(request.workspace_id, agent.id, threadKey);
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
      callerMessages: request.messages ?? [],
      checked,
      message: request.message,
      contextLimit: catalogRoute.context_limit,
      answerTokens: agent.maxToken ?? this.env.AGENT_ANSWER_RESERVE_TOKENS,
    });
    if (conversation.omittedTurns > 0)
      this.logger.log({
        msg: 'thread windowed to the model context',
        request_id: request.request_id,
        omitted_turns: conversation.omittedTurns,
      });

    const ledger = new LedgerRun(this.ledger, {
      request_id: request.request_id,
      workspace_id: request.workspace_id,
      request_type: 'agent',
      requestable_type: 'agent',
      requestable_id: agent.id,
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model: catalogRoute.id,
      message: request.message,
      metadata: request.metadata ?? {},
      user: request.user ?? null,
    });
    return {
      request,
      agent,
      models: new ModelRun(this.registry, chain.routes),
      messages: conversation.messages,
      params: toParams(agent),
      tools: runTools(
        this.reader,
        documents,
        agent.knowledgeBaseIds.length > 0 && catalogRoute.is_tool_calling
          ? this.knowledge.searcher(request.workspace_id, agent.knowledgeBaseIds)
          : undefined,
      ),
      maxToolCalls: agent.maxToolCalls ?? this.env.AGENT_DEFAULT_MAX_TOOL_CALLS,
      ...(thread && threadKey !== undefined && { thread: { id: thread.threadId, key: threadKey } }),
      checked,
      ledger,
      used: ZERO_USAGE,
    };
  }

  /**
   * Model turns until an answer. Tools are offered while the run has calls left; a turn past
   * the cap (or an agent with `tool_choice: none`) offers them with choice `none`, so the
   * model answers in text. `required` applies to the first turn only, `auto` after it.
   */
  private async loop(
    run: PreparedRun,
    turn: (call: PromptCall) => Promise<TurnOutcome>,
    listener: LoopListener,
    signal: AbortSignal | undefined,
  ): Promise<LoopResult> {
    const definitions = run.tools.definitions;
    let messages = run.messages;
    let choice: ToolChoice = run.agent.toolChoice ?? 'auto';
    let usage = ZERO_USAGE;
    const records: ToolCallRecord[] = [];
    const response: string[] = [];
    const reasoning: string[] = [];
    for (;;) {
      // A cancel stops the run between model turns and tool calls.
      if (signal?.aborted) throw signal.reason;
      const mayCall = definitions.length > 0 && choice !== 'none' && records.length < run.maxToolCalls;
      const outcome = await turn({
        messages,
        params: run.params,
        ...(definitions.length > 0 && { tools: definitions, toolChoice: mayCall ? choice : 'none' }),
        abortSignal: signal,
      });
      usage = addUsage(usage, outcome.usage);
      run.used = usage;
      response.push(outcome.response);
      reasoning.push(outcome.reasoning);
      if (!mayCall || outcome.toolCalls.length === 0) {
        // With a response format the answer is the last turn's JSON, not the text said between tool calls.
        const answer = run.params.responseFormat ? outcome.response : response.join('');
        return { response: answer, reasoning: reasoning.join(''), usage, stopReason: outcome.stopReason, toolCalls: records };
      }
      const results: ToolResult[] = [];
      for (const call of outcome.toolCalls) {
        const started = Date.now();
        // Calls past the cap in the same turn are answered, not run.
        const { observation, isError } =
          records.length < run.maxToolCalls
            ? await runTool(run.tools, call, signal ?? new AbortController().signal)
            : { observation: { error: `The limit of ${run.maxToolCalls} tool calls for this run was reached.` }, isError: true };
        if (signal?.aborted) throw signal.reason;
        const record: ToolCallRecord = {
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: call.input,
          observation: json(observation),
          durationMs: Date.now() - started,
        };
        records.push(record);
        listener.tool?.(record, call.input, run.tools.typeOf(call.toolName));
        results.push({ toolCallId: call.toolCallId, toolName: call.toolName, output: observation, isError });
      }
      messages = [...messages, ...outcome.responseMessages, toolResultsMessage(results)];
      if (choice === 'required') choice = 'auto';
    }
  }

  private completeTurn(run: PreparedRun, call: PromptCall): Promise<TurnOutcome> {
    return run.models.complete(call);
  }

  private async streamTurn(run: PreparedRun, call: PromptCall, listener: LoopListener): Promise<TurnOutcome> {
    const text = { reasoning: '', response: '' };
    const toolCalls: ToolCall[] = [];
    let open: 'reasoning' | 'response' | undefined;
    const close = () => {
      if (open) listener.textDone?.(open);
      open = undefined;
    };
    for await (const part of run.models.stream(call)) {
      if (part.type === 'reasoning' || part.type === 'response') {
        if (open !== part.type) close();
        open = part.type;
        text[part.type] += part.text;
        listener.fragment?.(part.type, part.text);
      } else if (part.type === 'tool-call') {
        close();
        toolCalls.push(part.toolCall);
      } else if (part.type === 'finish') {
        close();
        return { ...text, toolCalls, responseMessages: part.responseMessages, usage: part.usage, stopReason: part.stopReason };
      }
    }
    throw new WaggleException('provider_error', { detail: 'provider_stream_unfinished' });
  }

  /** Stores a threaded run's turn (before the answer is given), then the completed record. */
  private async complete(run: PreparedRun, result: LoopResult, started: number): Promise<void> {
    if (run.thread) {
      const attachments: StoredAttachment[] = [...run.checked.current.documents, ...run.checked.current.images].map(
        ({ url, kind, name }) => ({ url, kind, name }),
      );
      try {
        await this.runs.appendTurn({
          threadId: run.thread.id,
          requestId: run.request.request_id,
          message: run.request.message,
          attachments,
          response: result.response,
          toolCalls: result.toolCalls,
        });
      } catch (error) {
        this.logger.error({ err: error, request_id: run.request.request_id }, 'an agent turn could not be stored in its thread');
        const failure = new WaggleException('agent_completion_persistence_failed');
        run.ledger.finish('failed', Date.now() - started, null, { error: failure.message, error_code: failure.code });
        throw failure;
      }
    }
    run.ledger.finish(
      'completed',
      Date.now() - started,
      result.usage,
      {
        response: result.response,
        model: run.models.route.modelId,
        usage: result.usage,
        ...run.models.record(),
        ...(result.reasoning && { reasoning: result.reasoning }),
        stop_reason: result.stopReason,
        tool_calls: result.toolCalls.map((call) => ({
          tool_name: call.toolName,
          tool_input: json(call.input),
          observation: call.observation,
          duration_ms: call.durationMs,
        })),
        ...(run.thread && { thread_id: run.thread.key }),
      },
      run.models.route.modelId,
    );
  }

  /** Records a cancelled run, with the usage of the turns it finished. */
  private cancelled(run: PreparedRun, started: number): void {
    run.ledger.finish(
      'cancelled',
      Date.now() - started,
      run.used,
      { ...CANCELLED_RUN_DATA, ...run.models.record() },
      run.models.route.modelId,
    );
  }

  /** Records a failed run and answers the failure to throw. */
  private failed(run: PreparedRun, error: unknown, started: number): WaggleException {
    const failure = error instanceof WaggleException ? error : providerFailure(error, run.models.route);
    const data = { error: failure.message, error_code: failure.code, ...run.models.record() };
    run.ledger.finish('failed', Date.now() - started, null, data, run.models.route.modelId);
    return failure;
  }
}
