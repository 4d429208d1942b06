import type { CredentialSource, ModelPricing, RunCostFields } from '@waggle/contracts';
import type { LanguageModelUsage } from 'ai';
import type { CallCost, ModelRoute, PromptMessage, SpecUsage } from './types';
import { credentialSourceOf } from './workspace-credentials';

/**
 * The tokens of one model call, each counted once: `input` and `output` are totals, the others
 * are parts of them.
 *
 * Every provider's own convention, and what AI SDK 6 (the `ai` package and its `@ai-sdk/*`
 * providers, which this reads) makes of it, so that nothing is counted twice or missed:
 * - OpenAI (Chat Completions and Responses): `prompt_tokens` includes the cached tokens
 *   (`prompt_tokens_details.cached_tokens`), and `completion_tokens` includes the reasoning
 *   tokens (`completion_tokens_details.reasoning_tokens`). The SDK keeps both totals as they are.
 * - Anthropic: `input_tokens` EXCLUDES the cache: cache reads (`cache_read_input_tokens`) and
 *   writes (`cache_creation_input_tokens`) are reported beside it. The SDK's `inputTokens` is the
 *   sum of the three, `noCacheTokens` Anthropic's `input_tokens`. Thinking tokens are part of
 *   `output_tokens`.
 * - Google (Gemini): `promptTokenCount` includes `cachedContentTokenCount`;
 *   `candidatesTokenCount` EXCLUDES the thinking tokens (`thoughtsTokenCount`). The SDK's
 *   `outputTokens` is candidates + thoughts. Google bills no cache write per token (it bills
 *   storage per hour), so there are none.
 * - OpenAI-compatible hosts (Mistral, DeepSeek, xAI, Groq, Together, OpenRouter, Ollama):
 *   OpenAI's shape; `prompt_tokens_details.cached_tokens` where the host reports it (DeepSeek
 *   also sends `prompt_cache_hit_tokens`, the same number), no cache writes.
 * So, for all of them, the SDK's `inputTokens` is uncached + cache reads + cache writes and
 * `outputTokens` is text + reasoning.
 */
export interface CallTokens {
  /** Every prompt token: uncached, read from the cache and written to it. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Every completion token, reasoning included. */
  output: number;
  reasoning: number;
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** The SDK's usage of one call as CallTokens (unknown counts are 0; parts never exceed their total). */
export function tokensOf(usage: Partial<LanguageModelUsage> | undefined): CallTokens {
  const input = count(usage?.inputTokens);
  const output = count(usage?.outputTokens);
  const cacheRead = Math.min(input, count(usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens));
  const cacheWrite = Math.min(input - cacheRead, count(usage?.inputTokenDetails?.cacheWriteTokens));
  const reasoning = Math.min(output, count(usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens));
  return { input, cacheRead, cacheWrite, output, reasoning };
}

/** A price per million tokens (USD) as pico-USD per token: exact, prices have at most six decimals. */
function picoPerToken(pricePerMillion: number): number {
  return Math.round(pricePerMillion * 1_000_000);
}

/**
 * What one call cost, in pico-USD (unrounded: a run rounds its sum once). A price per million
 * tokens in USD is micro-USD per token, so: uncached input × input, cache reads × cached_input,
 * cache writes × cache_write, and output × output, except that reasoning tokens are priced at
 * `reasoning` when the model bills them apart. Exact while the sum stays below 2^53 pico-USD
 * (about 9,000 USD); beyond it the error is a few pico-USD.
 */
export function callCostPicoUsd(tokens: CallTokens, pricing: ModelPricing): number {
  const uncached = Math.max(0, tokens.input - tokens.cacheRead - tokens.cacheWrite);
  const reasoningApart = pricing.reasoning !== null ? tokens.reasoning : 0;
  return (
    uncached * picoPerToken(pricing.input) +
    tokens.cacheRead * picoPerToken(pricing.cached_input) +
    tokens.cacheWrite * picoPerToken(pricing.cache_write) +
    (tokens.output - reasoningApart) * picoPerToken(pricing.output) +
    reasoningApart * picoPerToken(pricing.reasoning ?? 0)
  );
}

/** Pico-USD as whole micro-USD, rounded half up (once per run). */
export function roundToMicroUsd(picoUsd: number): number {
  return Math.floor((picoUsd + 500_000) / 1_000_000);
}

/** A call on `route` that used `tokens`: priced at the route's price, or free (and unversioned) when it has none. */
export function costOfCall(route: ModelRoute, tokens: CallTokens, estimated = false): CallCost {
  return {
    picoUsd: route.pricing ? callCostPicoUsd(tokens, route.pricing) : 0,
    priceVersion: route.pricing?.price_version ?? null,
    credentials: credentialSourceOf(route),
    ...(estimated && { estimated: tokens }),
  };
}

const NO_TOKENS: Readonly<CallTokens> = Object.freeze({ input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 });

function addTokens(a: CallTokens, b: CallTokens): CallTokens {
  return {
    input: a.input + b.input,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
  };
}

/** Two costs of one answer (an answer and its repair) as one. */
export function addCallCost(a: CallCost, b: CallCost): CallCost {
  return {
    picoUsd: a.picoUsd + b.picoUsd,
    priceVersion: b.priceVersion ?? a.priceVersion,
    credentials: a.credentials === 'workspace' && b.credentials === 'workspace' ? 'workspace' : 'hosted',
    ...((a.estimated || b.estimated) && { estimated: addTokens(a.estimated ?? NO_TOKENS, b.estimated ?? NO_TOKENS) }),
  };
}

/** About four characters a token, plus each message's framing: a prompt's size when nothing better is known. */
export function estimateTokens(message: PromptMessage): number {
  const content = message.content;
  if (typeof content === 'string') return Math.ceil(content.length / 4) + 8;
  let tokens = 8;
  for (const part of content) {
    if (part.type === 'text') tokens += Math.ceil(part.text.length / 4);
    else if (part.type === 'image') tokens += 1_000;
    else tokens += Math.ceil(JSON.stringify(part).length / 4);
  }
  return tokens;
}

/**
 * The tokens of a call whose provider never reported its usage (the stream was aborted, by a
 * cancel, a client gone or a deadline): the prompt estimated from the messages sent, the
 * completion from the characters streamed so far (four a token, as estimateTokens counts).
 */
export function estimatedTokens(messages: readonly PromptMessage[], streamed: { text: number; reasoning: number }): CallTokens {
  const input = messages.reduce((sum, message) => sum + estimateTokens(message), 0);
  const reasoning = Math.ceil(streamed.reasoning / 4);
  return { input, cacheRead: 0, cacheWrite: 0, output: Math.ceil(streamed.text / 4) + reasoning, reasoning };
}

/** Estimated tokens in the spec's usage shape, as a cut-short run's record keeps them. */
export function usageOfTokens(tokens: CallTokens): SpecUsage {
  return {
    prompt_tokens: { total_tokens: tokens.input, cached_tokens: tokens.cacheRead },
    completion_tokens: { total_tokens: tokens.output, reasoning_tokens: tokens.reasoning },
    total_tokens: tokens.input + tokens.output,
  };
}

/**
 * Some model calls of a run, unrounded (RunCost.part): pico-USD and price versions null when none
 * had a price, credentials null when there were none.
 */
export interface CostPart {
  picoUsd: number | null;
  priceVersion: string | null;
  credentials: CredentialSource | null;
}

/**
 * Everything a run's model calls cost, summed as they end (answers, repairs, agent turns,
 * workflow steps, and aborted calls at their estimate), rounded once when the run records it.
 */
export class RunCost {
  private picoUsd = 0;
  private readonly versions = new Set<string>();
  private readonly sources = new Set<CredentialSource>();
  private calls = 0;
  private priced = 0;
  private estimatedTokens: CallTokens | null = null;

  add(cost: CallCost): void {
    this.calls += 1;
    this.sources.add(cost.credentials);
    if (cost.estimated) this.estimatedTokens = addTokens(this.estimatedTokens ?? NO_TOKENS, cost.estimated);
    if (cost.priceVersion === null) return;
    this.priced += 1;
    this.picoUsd += cost.picoUsd;
    this.versions.add(cost.priceVersion);
  }

  /**
   * The sum so far, unrounded, as one part of a larger run (a workflow step's, which its step
   * record keeps): the run adds its parts (addPart) and rounds once.
   */
  part(): CostPart {
    if (this.calls === 0) return { picoUsd: null, priceVersion: null, credentials: null };
    return {
      picoUsd: this.priced > 0 ? this.picoUsd : null,
      priceVersion: this.priced > 0 ? [...this.versions].sort().join(',') : null,
      credentials: this.sources.has('hosted') ? 'hosted' : 'workspace',
    };
  }

  /** A part (see part) joins this sum, still unrounded: the same fields as if its calls had been added here. */
  addPart(part: CostPart): void {
    if (part.credentials === null) return;
    this.calls += 1;
    this.sources.add(part.credentials);
    if (part.picoUsd === null || part.priceVersion === null) return;
    this.priced += 1;
    this.picoUsd += part.picoUsd;
    for (const version of part.priceVersion.split(',')) this.versions.add(version);
  }

  /**
   * The usage of the calls cut short before the provider reported it, estimated, as a cut-short
   * run's record keeps it (marked `estimated: true`); null when every call reported its usage.
   */
  estimatedUsage(): (SpecUsage & { estimated: true }) | null {
    return this.estimatedTokens ? { ...usageOfTokens(this.estimatedTokens), estimated: true } : null;
  }

  /**
   * The run record's cost fields: null when no model was called (cost also null when none of
   * the calls had a price); `workspace` credentials only when every call used the workspace's own.
   */
  fields(): RunCostFields {
    if (this.calls === 0) return { cost_micros: null, price_version: null, credentials: null };
    return {
      cost_micros: this.priced > 0 ? roundToMicroUsd(this.picoUsd) : null,
      price_version: this.priced > 0 ? [...this.versions].sort().join(',') : null,
      credentials: this.sources.has('hosted') ? 'hosted' : 'workspace',
    };
  }
}
