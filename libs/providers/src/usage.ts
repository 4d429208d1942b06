import type { FinishReason, LanguageModelUsage } from 'ai';
import type { SpecUsage, StopReason } from './types';

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * The SDK's usage in the spec's shape. Unknown counts are 0. Cached tokens are the prompt
 * tokens read from the provider's cache (part of the prompt total); reasoning tokens are
 * part of the completion total, as every provider the SDK normalises reports them.
 */
export function toSpecUsage(usage: Partial<LanguageModelUsage> | undefined): SpecUsage {
  const promptTokens = count(usage?.inputTokens);
  const completionTokens = count(usage?.outputTokens);
  const reported = count(usage?.totalTokens);
  return {
    prompt_tokens: {
      total_tokens: promptTokens,
      cached_tokens: count(usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens),
    },
    completion_tokens: {
      total_tokens: completionTokens,
      reasoning_tokens: count(usage?.outputTokenDetails?.reasoningTokens ?? usage?.reasoningTokens),
    },
    total_tokens: reported > 0 ? reported : promptTokens + completionTokens,
  };
}

/**
 * The SDK's finish reason as the spec's `stop_reason`:
 * `stop` → `completed` (a natural end or a stop sequence), `length` → `max_tokens`,
 * `content-filter` → `content_filter`, `tool-calls` → `tool_calls`, `error` → `error`,
 * anything else (including `other` and a missing reason) → `other`.
 */
export function toStopReason(finishReason: FinishReason | string | undefined): StopReason {
  switch (finishReason) {
    case 'stop':
      return 'completed';
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'content_filter';
    case 'tool-calls':
      return 'tool_calls';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

/** No tokens: the start of a sum. */
export const ZERO_USAGE: Readonly<SpecUsage> = Object.freeze({
  prompt_tokens: { total_tokens: 0, cached_tokens: 0 },
  completion_tokens: { total_tokens: 0, reasoning_tokens: 0 },
  total_tokens: 0,
});

/** Two calls' usage together: an agent's turns, or an answer and its repair. */
export function addUsage(a: SpecUsage, b: SpecUsage): SpecUsage {
  return {
    prompt_tokens: {
      total_tokens: a.prompt_tokens.total_tokens + b.prompt_tokens.total_tokens,
      cached_tokens: a.prompt_tokens.cached_tokens + b.prompt_tokens.cached_tokens,
    },
    completion_tokens: {
      total_tokens: a.completion_tokens.total_tokens + b.completion_tokens.total_tokens,
      reasoning_tokens: a.completion_tokens.reasoning_tokens + b.completion_tokens.reasoning_tokens,
    },
    total_tokens: a.total_tokens + b.total_tokens,
  };
}
