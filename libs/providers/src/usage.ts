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
