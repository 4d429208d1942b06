import { toSpecUsage, toStopReason } from './usage';

describe('toSpecUsage', () => {
  it('maps the SDK usage, cached and reasoning tokens included', () => {
    expect(
      toSpecUsage({
        inputTokens: 120,
        inputTokenDetails: { noCacheTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 0 },
        outputTokens: 40,
        outputTokenDetails: { textTokens: 10, reasoningTokens: 30 },
        totalTokens: 160,
      }),
    ).toEqual({
      prompt_tokens: { total_tokens: 120, cached_tokens: 100 },
      completion_tokens: { total_tokens: 40, reasoning_tokens: 30 },
      total_tokens: 160,
    });
  });

  it('falls back to the deprecated flat fields', () => {
    expect(toSpecUsage({ inputTokens: 5, outputTokens: 2, cachedInputTokens: 3, reasoningTokens: 1 })).toMatchObject({
      prompt_tokens: { cached_tokens: 3 },
      completion_tokens: { reasoning_tokens: 1 },
    });
  });

  it('answers 0 for what is unknown and sums the total when none is reported', () => {
    expect(toSpecUsage(undefined)).toEqual({
      prompt_tokens: { total_tokens: 0, cached_tokens: 0 },
      completion_tokens: { total_tokens: 0, reasoning_tokens: 0 },
      total_tokens: 0,
    });
    expect(
      toSpecUsage({
        inputTokens: 7,
        inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
        outputTokens: 3,
        outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
        totalTokens: undefined,
      }).total_tokens,
    ).toBe(10);
  });

  it('keeps every count a non-negative integer', () => {
    expect(toSpecUsage({ inputTokens: 2.6, outputTokens: -4, totalTokens: Number.NaN })).toEqual({
      prompt_tokens: { total_tokens: 3, cached_tokens: 0 },
      completion_tokens: { total_tokens: 0, reasoning_tokens: 0 },
      total_tokens: 3,
    });
  });
});

describe('toStopReason', () => {
  it.each([
    ['stop', 'completed'],
    ['length', 'max_tokens'],
    ['content-filter', 'content_filter'],
    ['tool-calls', 'tool_calls'],
    ['error', 'error'],
    ['other', 'other'],
    ['something-new', 'other'],
    [undefined, 'other'],
  ])('%s → %s', (finishReason, stopReason) => {
    expect(toStopReason(finishReason)).toBe(stopReason);
  });
});
