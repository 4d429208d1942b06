import { Injectable } from '@nestjs/common';
import type {
  ModelRoute as CatalogRoute,
  ConversationToolChoice,
  PromptConversation,
  ResponseFormat,
  VersionSelector,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { canonicalJson } from '@waggle/platform';
import {
  ModelRoutes,
  ModelRun,
  ProviderRegistry,
  resolveModelChain,
  toPromptParams,
  type CompletionResult,
  type RunCost,
  type ModelRoute,
  type PromptMessage,
  type PromptCall,
  type PromptParams,
  type ToolChoice,
  type ToolDefinition,
} from '@waggle/providers';
import { runCredentials } from '@waggle/runs';
import { PromptResolutionCache, type ServedPrompt, type SplitAssignment } from '../prompts/prompt-resolution.cache';
import { WorkspaceCredentials } from '../provider-credentials/workspace-credentials';
import type { ResolvedPrompt } from '../prompts/prompts.repository';
import { conversationMessages, imageUrls, renderMessages } from './prompt-messages';

/** A deployed prompt's variant and the inputs its templates are rendered with. */
export interface PromptTarget {
  workspaceId: string;
  deployment: string;
  variant: string;
  inputs: Record<string, unknown>;
  /** An OpenAI client's messages, tools, parameters and response format (the OpenAI-compatible surface). */
  conversation?: PromptConversation;
  /** A label or a version instead of the deployed one. */
  selector?: VersionSelector;
  /** Who a split variant's run is assigned for; without it a split variant serves its deployed version. */
  assignment?: SplitAssignment;
}

/** A prompt run that nothing can refuse any more: the version, its model's routes, the rendered call. */
export interface PreparedPrompt extends ServedPrompt {
  catalogRoute: CatalogRoute;
  route: ModelRoute;
  /** The variant's model, then its fallbacks (D41). */
  routes: ModelRoute[];
  messages: PromptMessage[];
  params: PromptParams;
  /** A conversation's tools: the model's calls are answered, not run (the caller runs them). */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
}

/**
 * How a deployed prompt is executed, for whatever runs one: prompt runs (which record each in
 * the ledger around it) and the workflow `prompt` step (which records it as a step). Every
 * refusal comes before the provider is called.
 */
@Injectable()
export class PromptExecution {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    private readonly resolutions: PromptResolutionCache,
    private readonly credentials: WorkspaceCredentials,
  ) {}

  /** The version the target serves (or the one given, a trigger's pinned one), rendered for its model. */
  async prepare(target: PromptTarget, resolved?: ResolvedPrompt | ServedPrompt): Promise<PreparedPrompt> {
    const prompt: ServedPrompt =
      resolved === undefined
        ? await this.resolutions.resolveAt(target.workspaceId, target.deployment, target.variant, target.selector, target.assignment)
        : { label: null, split: null, ...resolved };
    const { version } = prompt;
    const { conversation } = target;
    if (conversation) requireInputs(version.variables, target.inputs);
    const images = imageUrls(version.imageInputs, target.inputs);
    const chain = await resolveModelChain(
      this.routes,
      this.registry,
      version.model,
      version.fallbacks,
      { images: images.length > 0 },
      runCredentials(version.credentials, target.workspaceId, this.credentials.lookup),
    );
    const rendered = renderMessages(version.messages, target.inputs, images) as PromptMessage[];
    if (!conversation) {
      return {
        ...prompt,
        catalogRoute: chain.catalog,
        route: chain.route,
        routes: chain.routes,
        messages: rendered,
        params: toPromptParams(version.params, version.responseFormat),
      };
    }
    const responseFormat = conversationFormat(version.responseFormat, conversation.response_format);
    const { max_tokens, top_p, ...params } = conversation.params ?? {};
    return {
      ...prompt,
      catalogRoute: chain.catalog,
      route: chain.route,
      routes: chain.routes,
      messages: [...rendered, ...conversationMessages(conversation.messages)],
      params: {
        ...toPromptParams(version.params, responseFormat),
        ...definedOnly({ ...params, topP: top_p, maxOutputTokens: max_tokens }),
      },
      ...(conversation.tools?.length && {
        tools: conversation.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.parameters as ToolDefinition['inputSchema'],
        })),
        toolChoice: toToolChoice(conversation.tool_choice),
      }),
    };
  }

  /** The model calls of one run of the prepared prompt: its model, its fallbacks, a repair (their cost summed in `cost`). */
  modelRun(prepared: PreparedPrompt, cost?: RunCost): ModelRun {
    return new ModelRun(this.registry, prepared.routes, cost);
  }

  /**
   * One answer of the prepared prompt, by its model or a fallback; a provider failure is the
   * provider_error it answers, with every attempt in its details.
   */
  async complete(prepared: PreparedPrompt, abortSignal?: AbortSignal, run = this.modelRun(prepared)): Promise<CompletionResult> {
    return run.complete({ ...callOf(prepared), abortSignal });
  }
}

/** The model call of a prepared prompt, without its abort signal. */
export function callOf(prepared: PreparedPrompt): Pick<PromptCall, 'messages' | 'params' | 'tools' | 'toolChoice'> {
  return { messages: prepared.messages, params: prepared.params, tools: prepared.tools, toolChoice: prepared.toolChoice };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/** A conversation renders nothing empty by surprise: every variable of the template needs a value (decisions). */
function requireInputs(variables: readonly string[], inputs: Record<string, unknown>): void {
  const missing = variables.find((name) => inputs[name] === undefined);
  if (missing === undefined) return;
  const problem = { detail: 'openai_input_missing', params: { name: missing } } as const;
  throw new WaggleException('validation_error', {
    status: 400,
    ...problem,
    details: [{ field: `inputs.${missing}`, messages: [problem] }],
  });
}

/** The variant's response format holds; a caller may repeat it, not replace it. */
function conversationFormat(own: ResponseFormat | null, asked: ResponseFormat | undefined): ResponseFormat | null {
  if (!asked) return own;
  if (!own) return asked;
  if (canonicalJson(own.schema, 'code-unit') === canonicalJson(asked.schema, 'code-unit')) return own;
  const problem = { detail: 'openai_response_format_conflict' } as const;
  throw new WaggleException('validation_error', { status: 400, ...problem, details: [{ field: 'response_format', messages: [problem] }] });
}

function toToolChoice(choice: ConversationToolChoice | undefined): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  return { type: 'tool', toolName: choice.name };
}
