import { Inject, Injectable } from '@nestjs/common';
import { AgentPatterns, KnowledgeBasePatterns, send } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, NatsRpcClient } from '@waggle/platform';
import { RunCancellation, runCredentials } from '@waggle/runs';
import { WebScraper } from '@waggle/documents';
import {
  createWebSearchProvider,
  ModelRoutes,
  ModelRun,
  ProviderRegistry,
  resolveModelChain,
  RunCost,
  toPromptParams,
  WebToolError,
  type CompletionResult,
  type ModelAttempt,
  type PromptMessage,
  type PromptParams,
  type WebSearchProvider,
} from '@waggle/providers';
import { CallbackUrlPolicy, createGuardedDispatcher, refusalOf } from '@waggle/webhooks';
import { renderText, renderValue, type PromptStep, type WorkflowScope, type WorkflowStep } from '@waggle/workflows';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request, type Dispatcher } from 'undici';
import type { InvocationEnv } from '../../config/invocation.env';
import { PromptExecution } from '../../prompt-runs/prompt-execution';
import { WorkspaceCredentials } from '../../provider-credentials/workspace-credentials';
import { isRunCancel } from './run-failure';
import type { RunExecution } from './workflow-engine';
import { ProviderToolMeter } from './provider-tool-meter';

/** What one executed step produced. */
export interface StepResult {
  output: unknown;
  tokens: number;
  modelCalls: number;
  /** A model step's calls, when a fallback could answer or it took more than one (D41, D42). */
  modelAttempts?: ModelAttempt[];
}

/** Most bytes of an http step's response body kept as its output. */
const HTTP_BODY_MAX_BYTES = 1024 * 1024;
const SECRET_HEADER = /authorization|cookie|token|secret|key|signature/i;

/** A request id for a run a step starts in another service (an agent run): the same on every attempt of the step. */
export function childRequestId(runId: string, stepKey: string): string {
  return `req_${createHash('sha256').update(`${runId}/${stepKey}`).digest('hex').slice(0, 32)}`;
}

function toolFailure(error: unknown): WaggleException {
  if (error instanceof WaggleException) return error;
  if (error instanceof WebToolError) {
    return new WaggleException('upstream_request_failed', { detail: 'web_tool_failed', params: { reason: error.reason } });
  }
  return new WaggleException('upstream_request_failed', { detail: 'tool_call_failed' });
}

/** How much of a failed MCP tool's text its step's failure keeps: in the message, and in `details`. */
const MCP_ERROR_TEXT_CHARS = { message: 300, details: 4_000 };

/** A tool's error result as its step's failure (`mcp_tool_failed`), the tool's own text bounded. */
export function mcpToolFailed(server: string, tool: string, text: string): WaggleException {
  const reason = text.length > MCP_ERROR_TEXT_CHARS.message ? `${text.slice(0, MCP_ERROR_TEXT_CHARS.message)}…` : text;
  return new WaggleException('mcp_tool_failed', {
    detail: 'mcp_tool_error',
    params: { server, tool, reason },
    details: { server, tool, error: text.slice(0, MCP_ERROR_TEXT_CHARS.details) },
  });
}

/**
 * A model call's answer as a step's output: with a response format, the parsed value (the
 * answer was validated against the schema, so it is JSON), for later steps and conditions to
 * read fields of; otherwise the text.
 */
function modelStepResult(result: CompletionResult, params: PromptParams, models: ModelRun): StepResult {
  const output: unknown = params.responseFormat ? (JSON.parse(result.response) as unknown) : result.response;
  const { attempts } = models.record();
  return { output, tokens: result.usage.total_tokens, modelCalls: result.attempts.length, ...(attempts && { modelAttempts: attempts }) };
}

/**
 * The work of every step type but `condition` and `loop` (the engine runs those): each resolves
 * its fields against the run scope (what its record shows as inputs), then runs. Failures are
 * WaggleExceptions with the catalog code the run fails with.
 */
@Injectable()
export class StepExecutors {
  private readonly search: WebSearchProvider | null;
  private readonly scraper: WebScraper;
  private readonly httpPolicy: CallbackUrlPolicy;
  private readonly httpDispatcher: Dispatcher;

  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly prompts: PromptExecution,
    private readonly rpc: NatsRpcClient,
    private readonly meter: ProviderToolMeter,
    private readonly cancellation: RunCancellation,
    private readonly credentials: WorkspaceCredentials,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {
    this.search = createWebSearchProvider(env);
    this.scraper = WebScraper.fromSettings(
      env,
      env.SCRAPE_EXTRA_CA_FILE !== '' ? { ca: readFileSync(env.SCRAPE_EXTRA_CA_FILE, 'utf8') } : {},
    );
    this.httpPolicy = new CallbackUrlPolicy(env.WORKFLOW_HTTP_URL_ALLOWLIST, {
      url: 'url_word_plain',
      host: 'host_word_plain',
      setting: 'WORKFLOW_HTTP_URL_ALLOWLIST',
    });
    this.httpDispatcher = createGuardedDispatcher(this.httpPolicy);
  }

  render(value: unknown, scope: WorkflowScope): unknown {
    return renderValue(value, scope);
  }

  /** A step's fields resolved against the scope: what it runs with. */
  inputsOf(step: WorkflowStep, scope: WorkflowScope): Record<string, unknown> {
    switch (step.type) {
      case 'prompt':
        return step.model !== undefined
          ? {
              model: step.model,
              messages: (step.messages ?? []).map((message) => ({ role: message.role, content: renderText(message.content, scope) })),
              params: step.params ?? {},
            }
          : { deployment: step.deployment, variant: step.variant, inputs: renderValue(step.inputs ?? {}, scope) };
      case 'agent':
        return {
          agent: step.agent,
          message: renderText(step.message, scope),
          ...(step.thread_id !== undefined && { thread_id: renderText(step.thread_id, scope) }),
        };
      case 'knowledge_search':
        return {
          knowledge_base: step.knowledge_base,
          query: renderText(step.query, scope),
          search_type: step.search_type,
          limit: step.limit,
          threshold: step.threshold,
        };
      case 'web_search':
        return { query: renderText(step.query, scope), num_results: step.num_results, ...(step.country && { country: step.country }) };
      case 'scrape':
        return { url: renderText(step.url, scope) };
      case 'http':
        return {
          method: step.method,
          url: renderText(step.url, scope),
          headers: Object.fromEntries(Object.entries(step.headers ?? {}).map(([name, value]) => [name, renderText(value, scope)])),
          ...(step.body !== undefined && { body: renderValue(step.body, scope) }),
        };
      case 'template':
        return { text: renderText(step.text, scope) };
      case 'mcp_tool':
        return { server: step.server, tool: step.tool, arguments: renderValue(step.arguments, scope) };
      default:
        return {};
    }
  }

  /** The inputs as a step record keeps them: header values that look like credentials are not stored. */
  recordable(inputs: Record<string, unknown>): Record<string, unknown> {
    const headers = inputs.headers as Record<string, string> | undefined;
    if (!headers) return inputs;
    return {
      ...inputs,
      headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADER.test(name) ? '[redacted]' : value])),
    };
  }

  /**
   * Runs a step; the model calls the workflow makes itself (a prompt step's answer, repair and
   * fallbacks) are added to `cost` as they end. An agent step's are not: its agent run is a run
   * of its own, whose ledger record has their cost.
   */
  async run(step: WorkflowStep, inputs: Record<string, unknown>, execution: RunExecution, key: string, cost: RunCost): Promise<StepResult> {
    switch (step.type) {
      case 'template':
        return { output: inputs.text, tokens: 0, modelCalls: 0 };
      case 'prompt':
        return step.model !== undefined ? this.modelCall(step, inputs, execution, cost) : this.deployedPrompt(inputs, execution, cost);
      case 'agent':
        return this.agent(key, inputs, execution);
      case 'knowledge_search':
        return this.knowledgeSearch(inputs, execution);
      case 'web_search':
        return this.webSearch(inputs, execution);
      case 'scrape':
        return this.scrape(inputs, execution);
      case 'http':
        return this.http(inputs, execution);
      case 'mcp_tool':
        return this.mcpTool(key, inputs, execution);
      default:
        throw new WaggleException('internal_server_error', { detail: 'step_run_by_engine', params: { type: step.type } });
    }
  }

  /** A model call with the step's own messages. */
  private async modelCall(step: PromptStep, inputs: Record<string, unknown>, execution: RunExecution, cost: RunCost): Promise<StepResult> {
    const chain = await resolveModelChain(
      this.routes,
      this.registry,
      inputs.model as string,
      step.fallbacks,
      {},
      runCredentials(step.credentials, execution.run.workspace_id, this.credentials.lookup),
    );
    const params = toPromptParams(step.params ?? {}, step.response_format);
    const models = new ModelRun(this.registry, chain.routes, cost);
    const result = await models.complete({ messages: inputs.messages as PromptMessage[], params, abortSignal: execution.signal });
    return modelStepResult(result, params, models);
  }

  /** A deployed prompt variant's current version, rendered with the step's inputs. */
  private async deployedPrompt(inputs: Record<string, unknown>, execution: RunExecution, cost: RunCost): Promise<StepResult> {
    const prepared = await this.prompts.prepare({
      workspaceId: execution.run.workspace_id,
      deployment: inputs.deployment as string,
      variant: inputs.variant as string,
      inputs: (inputs.inputs ?? {}) as Record<string, unknown>,
    });
    const models = this.prompts.modelRun(prepared, cost);
    const result = await this.prompts.complete(prepared, execution.signal, models);
    return modelStepResult(result, prepared.params, models);
  }

  private remainingMs(execution: RunExecution): number {
    const deadline = execution.run.deadline_at?.getTime() ?? Date.now() + this.env.WORKFLOW_RUN_TIMEOUT_MS;
    return Math.max(1_000, deadline - Date.now());
  }

  /**
   * Work a step asks of another service under a child request id: a cancel of the workflow run
   * cancels it there too (only a cancel: after a lost lease or the time-out, a re-run asks for the
   * same child run again).
   */
  private async asChild<T>(execution: RunExecution, stepKey: string, work: (requestId: string) => Promise<T>): Promise<T> {
    const requestId = childRequestId(execution.run.id, stepKey);
    const cancelChild = () => {
      if (isRunCancel(execution.signal)) this.cancellation.cancelElsewhere(requestId);
    };
    execution.signal.addEventListener('abort', cancelChild, { once: true });
    try {
      return await work(requestId);
    } finally {
      execution.signal.removeEventListener('abort', cancelChild);
    }
  }

  /** An agent run in the agent service, as a child of the workflow run (asChild). */
  private agent(stepKey: string, inputs: Record<string, unknown>, execution: RunExecution): Promise<StepResult> {
    return this.asChild(execution, stepKey, async (requestId) => {
      const answer = await send(
        this.rpc,
        AgentPatterns.invokeAgent,
        {
          workspace_id: execution.run.workspace_id,
          request_id: requestId,
          agent: inputs.agent as string,
          message: inputs.message as string,
          ...(inputs.thread_id !== undefined && { thread_id: inputs.thread_id as string }),
        },
        // An operator's setting, not a time-out of its own: an agent step may take what is left of the run
        // (WORKFLOW_RUN_TIMEOUT_MS), longer than a sync agent run's contract allows.
        // eslint-disable-next-line no-restricted-syntax
        { timeoutMs: this.remainingMs(execution) },
      );
      return { output: answer.response, tokens: answer.usage.total_tokens, modelCalls: 1 };
    });
  }

  /**
   * One tool of a workspace MCP server, called by the agent service (which holds the servers and
   * their secrets) as a child of the workflow run (asChild), for what is left of the run (its
   * deadline cuts the call). The output is the tool's structured content, else its text; a tool's
   * error fails the step with `mcp_tool_failed`, the tool's text (bounded) in its details.
   */
  private mcpTool(stepKey: string, inputs: Record<string, unknown>, execution: RunExecution): Promise<StepResult> {
    const server = inputs.server as string;
    const tool = inputs.tool as string;
    return this.asChild(execution, stepKey, async (requestId) => {
      const answer = await send(this.rpc, AgentPatterns.callMcpTool, {
        workspace_id: execution.run.workspace_id,
        request_id: requestId,
        server,
        tool,
        arguments: inputs.arguments as Record<string, unknown>,
      });
      if (answer.is_error) throw mcpToolFailed(server, tool, answer.text);
      return { output: answer.structured_content ?? answer.text, tokens: 0, modelCalls: 0 };
    });
  }

  private async knowledgeSearch(inputs: Record<string, unknown>, execution: RunExecution): Promise<StepResult> {
    const answer = await send(this.rpc, KnowledgeBasePatterns.search, {
      workspace_id: execution.run.workspace_id,
      knowledge_base_id: inputs.knowledge_base as string,
      search_query: inputs.query as string,
      ...(inputs.search_type !== undefined && { search_type: inputs.search_type as 'hybrid' }),
      ...(inputs.limit !== undefined && { search_chunk_limit: inputs.limit as number }),
      ...(inputs.threshold !== undefined && { search_score_threshold: inputs.threshold as number }),
    });
    return { output: answer, tokens: 0, modelCalls: 0 };
  }

  private async webSearch(inputs: Record<string, unknown>, execution: RunExecution): Promise<StepResult> {
    if (!this.search) throw new WaggleException('config_error', { detail: 'web_search_unconfigured' });
    await this.meter.take(execution.run.workspace_id, execution.run.tool_call_limit);
    try {
      const results = await this.search.search({
        query: inputs.query as string,
        numResults: inputs.num_results as number,
        ...(inputs.country !== undefined && { country: inputs.country as string }),
        signal: execution.signal,
      });
      return { output: { query: inputs.query, results }, tokens: 0, modelCalls: 0 };
    } catch (error) {
      throw toolFailure(error);
    }
  }

  private async scrape(inputs: Record<string, unknown>, execution: RunExecution): Promise<StepResult> {
    await this.meter.take(execution.run.workspace_id, execution.run.tool_call_limit);
    try {
      const page = await this.scraper.scrape(inputs.url as string, execution.signal);
      return { output: page, tokens: 0, modelCalls: 0 };
    } catch (error) {
      throw toolFailure(error);
    }
  }

  /** An API call through the SSRF guard: no redirects, address checked at connect time, body capped. */
  private async http(inputs: Record<string, unknown>, execution: RunExecution): Promise<StepResult> {
    const url = inputs.url as string;
    const refusal = this.httpPolicy.refusal(url);
    if (refusal) throw new WaggleException('validation_error', { detail: 'url_refused', params: { reason: refusal } });
    const headers = { ...(inputs.headers as Record<string, string>) };
    let body: string | undefined;
    if (inputs.body !== undefined) {
      body = typeof inputs.body === 'string' ? inputs.body : JSON.stringify(inputs.body);
      if (typeof inputs.body !== 'string' && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
    }
    const timeout = AbortSignal.timeout(Math.min(this.env.WEB_TOOL_TIMEOUT_MS, this.remainingMs(execution)));
    try {
      const response = await request(url, {
        method: inputs.method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.httpDispatcher,
        signal: AbortSignal.any([timeout, execution.signal]),
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > HTTP_BODY_MAX_BYTES) {
          response.body.destroy();
          throw new WaggleException('upstream_request_failed', {
            detail: 'http_response_too_large',
            params: { url, bytes: HTTP_BODY_MAX_BYTES },
          });
        }
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      const contentType = String(response.headers['content-type'] ?? '');
      let parsed: unknown = text;
      if (contentType.includes('json')) {
        try {
          parsed = JSON.parse(text) as unknown;
        } catch {
          parsed = text;
        }
      }
      if (response.statusCode >= 400)
        throw new WaggleException('upstream_request_failed', {
          detail: 'http_status',
          params: { method: inputs.method as string, url, status: response.statusCode },
        });
      return { output: { status: response.statusCode, body: parsed }, tokens: 0, modelCalls: 0 };
    } catch (error) {
      if (error instanceof WaggleException) throw error;
      const refused = refusalOf(error);
      if (refused) throw new WaggleException('validation_error', { detail: 'url_refused', params: { reason: refused.refusal } });
      if (timeout.aborted)
        throw new WaggleException('upstream_request_failed', {
          status: 504,
          detail: 'http_timeout',
          params: { method: inputs.method as string, url },
        });
      throw new WaggleException('upstream_request_failed', { detail: 'http_failed', params: { method: inputs.method as string, url } });
    }
  }
}
