import { generateText, stepCountIs, streamText, type LanguageModel, type LanguageModelUsage } from 'ai';
import { jsonSchemaOutput, toCallSettings } from './call-options';
import { costOfCall, estimatedTokens, tokensOf } from './cost';
import { abortReason, IncompleteStreamError, providerFailure } from './failures';
import type { ModelAnswer, ModelStream, ModelStreamPart } from './model-answer';
import { modelCallTelemetry, type CallAttempt } from './model-telemetry';
import type { OpenAIChatCall, OpenAIChatModel } from './openai-chat/client';
import { chatRequestBody } from './openai-chat/request';
import { withPromptCache } from './prompt-cache';
import { recordedCallFailure, recordProviderCall } from './provider-metrics';
import type { ProviderRegistry } from './registry';
import { toToolCall, toToolChoice, toToolSet } from './tools';
import { withSchemaInstruction } from './structured-output';
import type { CallCost, CompletionResult, ModelRoute, PromptCall, StreamPart } from './types';
import { toSpecUsage, toStopReason } from './usage';

/** One model turn per call: the caller runs the tools and decides whether to go on. */
const ONE_TURN = stepCountIs(1);

/** One call's answer on one route; ModelRun adds the attempts of a run's fallbacks and repair. */
export type RouteCompletion = Omit<CompletionResult, 'attempts'>;

/**
 * Where a call's cost goes as soon as it is known: its answer's (the provider's usage), or, for
 * a call aborted before its usage came (a cancel, a client gone, a deadline), its estimate. Run
 * code sums them (RunCost), so a call cut short is charged for what it used.
 */
export type CostSink = (cost: CallCost) => void;

function prepare(registry: ProviderRegistry, route: ModelRoute, call: PromptCall, attempt: CallAttempt | undefined) {
  const model: LanguageModel = registry.languageModel(route);
  // Native where the model has it; otherwise the schema is given as an instruction (D42).
  const format = route.nativeJsonSchema ? call.params?.responseFormat : undefined;
  const tools = call.tools && call.tools.length > 0 ? call.tools : undefined;
  const toolChoice = tools && toToolChoice(call.toolChoice, tools);
  const messages = withPromptCache(
    route,
    withSchemaInstruction(route, call.params?.responseFormat, call.messages),
    call.params?.promptCache,
  );
  const telemetry = modelCallTelemetry(attempt);
  return {
    model,
    messages,
    // The roles come from the prompt version its workspace wrote; caller inputs only fill
    // templates inside message content, so a system message here is the author's own.
    allowSystemInMessages: true,
    ...toCallSettings(route, call.params),
    ...(format && { output: jsonSchemaOutput(format) }),
    maxRetries: registry.settings.maxRetries,
    ...(tools && { tools: toToolSet(tools), ...(toolChoice && { toolChoice }) }),
    stopWhen: ONE_TURN,
    ...telemetry,
    /** The same call on the lean chat-completions client, when the route has one and nothing needs the SDK. */
    lean: (stream: boolean): { model: OpenAIChatModel; call: OpenAIChatCall } | undefined => {
      // Spans are the SDK's (model-telemetry.ts): a call whose spans are recorded is the SDK's.
      if (telemetry.experimental_telemetry) return undefined;
      const chat = registry.chatModel(route);
      if (!chat) return undefined;
      const body = chatRequestBody(
        { providerModelId: route.providerModelId, messages, params: call.params ?? {}, format, tools, toolChoice },
        stream,
      );
      if (!body) return undefined;
      return { model: chat, call: { body, tools, toolChoice, maxRetries: registry.settings.maxRetries } };
    },
  };
}

type PreparedCall = ReturnType<typeof prepare>;

/** One whole model call: on the lean client where the route has one (the OpenAI chat protocol), else on the SDK's generateText. */
async function generate(prepared: PreparedCall, abortSignal: AbortSignal | undefined): Promise<ModelAnswer> {
  const { lean, ...request } = prepared;
  const chat = lean(false);
  if (chat) return chat.model.generate({ ...chat.call, abortSignal });
  const result = await generateText({ ...request, abortSignal });
  return {
    text: result.text,
    reasoningText: result.reasoningText,
    toolCalls: result.toolCalls,
    responseMessages: result.response.messages,
    usage: result.usage,
    finishReason: result.finishReason,
  };
}

/** One streamed model call, on the lean client or the SDK's streamText as generate() chooses. */
function streamCall(prepared: PreparedCall, abortSignal: AbortSignal): ModelStream {
  const { lean, ...request } = prepared;
  const chat = lean(true);
  if (chat) return chat.model.stream({ ...chat.call, abortSignal });
  // Errors are read from the stream; the SDK's default handler would also print them.
  const result = streamText({ ...request, abortSignal, onError: () => undefined });
  return {
    parts: result.fullStream as AsyncIterable<ModelStreamPart>,
    responseMessages: async () => (await result.response).messages,
  };
}

/**
 * One model call, whole. Rejects with config_error before any request when the provider is
 * not configured, provider_error when the provider fails, and the signal's reason (not a
 * provider_error) when the call was aborted.
 */
export async function complete(
  registry: ProviderRegistry,
  route: ModelRoute,
  call: PromptCall,
  attempt?: CallAttempt,
  charge?: CostSink,
): Promise<RouteCompletion> {
  const request = prepare(registry, route, call, attempt);
  const startedAt = performance.now();
  try {
    const result = await generate(request, call.abortSignal);
    const usage = toSpecUsage(result.usage);
    const cost = costOfCall(route, tokensOf(result.usage));
    charge?.(cost);
    recordProviderCall(route, startedAt, {
      outcome: 'ok',
      inputTokens: usage.prompt_tokens.total_tokens,
      outputTokens: usage.completion_tokens.total_tokens,
    });
    return {
      response: result.text,
      reasoning: result.reasoningText ?? '',
      toolCalls: result.toolCalls.map(toToolCall),
      responseMessages: result.responseMessages,
      usage,
      cost,
      stopReason: toStopReason(result.finishReason),
      model: route.modelId,
    };
  } catch (error) {
    // The prompt reached the provider: an aborted call is charged for it (nothing was streamed).
    if (call.abortSignal?.aborted) charge?.(costOfCall(route, estimatedTokens(request.messages, { text: 0, reasoning: 0 }), true));
    throw recordedCallFailure(error, route, startedAt, call.abortSignal);
  }
}

/**
 * One model call as fragments, each yielded as soon as the SDK parses it, then one `finish`.
 * Throws config_error at once (not from the iterator) when the provider is not configured.
 * The iterator throws provider_error on a failure before or during the stream, and the
 * signal's reason when aborted. Leaving the loop early aborts the provider request too.
 */
export function stream(
  registry: ProviderRegistry,
  route: ModelRoute,
  call: PromptCall,
  attempt?: CallAttempt,
  charge?: CostSink,
): AsyncIterable<StreamPart> {
  return streamParts(prepare(registry, route, call, attempt), route, call.abortSignal, charge);
}

async function* streamParts(
  request: PreparedCall,
  route: ModelRoute,
  callerSignal: AbortSignal | undefined,
  charge: CostSink | undefined,
): AsyncGenerator<StreamPart> {
  const stopped = new AbortController();
  const signal = callerSignal ? AbortSignal.any([callerSignal, stopped.signal]) : stopped.signal;
  const startedAt = performance.now();
  let finished = false;
  let recorded = false;
  /** What was streamed (characters), and the provider's usage if its step ended: what a call cut short is charged for. */
  const streamed = { text: 0, reasoning: 0 };
  let stepUsage: Partial<LanguageModelUsage> | undefined;
  let charged = false;
  const chargeCutShort = () => {
    if (charged || finished) return;
    charged = true;
    charge?.(costOfCall(route, stepUsage ? tokensOf(stepUsage) : estimatedTokens(request.messages, streamed), !stepUsage));
  };
  try {
    const result = streamCall(request, signal);
    for await (const part of result.parts) {
      switch (part.type) {
        case 'reasoning-delta':
          streamed.reasoning += part.text.length;
          // Anthropic's thinking signature arrives as an empty reasoning delta.
          if (part.text.length > 0) yield { type: 'reasoning', text: part.text };
          break;
        case 'text-delta':
          streamed.text += part.text.length;
          if (part.text.length > 0) yield { type: 'response', text: part.text };
          break;
        case 'tool-input-delta':
          streamed.text += part.delta.length;
          break;
        case 'tool-call':
          yield { type: 'tool-call', toolCall: toToolCall(part) };
          break;
        case 'finish-step':
          stepUsage = part.usage;
          break;
        case 'error':
          throw part.error;
        case 'abort':
          throw callerSignal ? abortReason(callerSignal) : new DOMException('The operation was aborted.', 'AbortError');
        case 'finish': {
          finished = true;
          const usage = toSpecUsage(part.totalUsage);
          const cost = costOfCall(route, tokensOf(part.totalUsage));
          charged = true;
          charge?.(cost);
          recorded = true;
          recordProviderCall(route, startedAt, {
            outcome: 'ok',
            inputTokens: usage.prompt_tokens.total_tokens,
            outputTokens: usage.completion_tokens.total_tokens,
          });
          yield {
            type: 'finish',
            usage,
            cost,
            stopReason: toStopReason(part.finishReason),
            responseMessages: await result.responseMessages(),
          };
          return;
        }
      }
    }
    throw new IncompleteStreamError('stream ended without a finish part');
  } catch (error) {
    if (callerSignal?.aborted) {
      chargeCutShort();
      recorded = true;
      recordProviderCall(route, startedAt, { outcome: 'aborted' });
      throw abortReason(callerSignal);
    }
    const failure = providerFailure(error, route);
    if (!recorded) recordProviderCall(route, startedAt, { outcome: 'error', error: failure });
    recorded = true;
    throw failure;
  } finally {
    if (!finished) stopped.abort();
    // The caller left the loop before the end: the request was cut short on its side.
    if (!recorded) {
      chargeCutShort();
      recordProviderCall(route, startedAt, { outcome: 'aborted' });
    }
  }
}
