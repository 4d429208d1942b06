import type { ModelPricing } from '@waggle/contracts';
import type { LanguageModelUsage } from 'ai';
import { addCallCost, callCostPicoUsd, costOfCall, estimatedTokens, roundToMicroUsd, RunCost, tokensOf, type CallTokens } from './cost';
import type { ModelRoute } from './types';
import { WorkspaceCredential } from './workspace-credentials';

const pricing = (extra: Partial<ModelPricing> = {}): ModelPricing => ({
  input: 3,
  cached_input: 0.3,
  cache_write: 3.75,
  output: 15,
  reasoning: null,
  price_version: '2026-11-21',
  ...extra,
});

/** The SDK's usage as each provider package maps its wire usage (node_modules/@ai-sdk/*: convert*Usage). */
function sdkUsage(input: LanguageModelUsage['inputTokenDetails'] & { total: number }, output: { total: number; reasoning?: number }) {
  return {
    inputTokens: input.total,
    inputTokenDetails: {
      noCacheTokens: input.noCacheTokens,
      cacheReadTokens: input.cacheReadTokens,
      cacheWriteTokens: input.cacheWriteTokens,
    },
    outputTokens: output.total,
    outputTokenDetails: { textTokens: output.total - (output.reasoning ?? 0), reasoningTokens: output.reasoning },
    totalTokens: input.total + output.total,
  } satisfies LanguageModelUsage;
}

const micros = (tokens: CallTokens, price: ModelPricing) => roundToMicroUsd(callCostPicoUsd(tokens, price));

describe('cost of a model call', () => {
  it('prices a million tokens at the price per million (micro-USD per token)', () => {
    const tokens = { input: 1_000_000, cacheRead: 0, cacheWrite: 0, output: 1_000_000, reasoning: 0 };
    expect(micros(tokens, pricing())).toBe(18_000_000);
  });

  it('OpenAI: prompt_tokens includes the cached ones, completion_tokens the reasoning ones, each counted once', () => {
    // prompt_tokens 1000 of which cached 600; completion_tokens 500 of which reasoning 200.
    const tokens = tokensOf(
      sdkUsage({ total: 1000, noCacheTokens: 400, cacheReadTokens: 600, cacheWriteTokens: undefined }, { total: 500, reasoning: 200 }),
    );
    expect(tokens).toEqual({ input: 1000, cacheRead: 600, cacheWrite: 0, output: 500, reasoning: 200 });
    const price = pricing({ input: 1.25, cached_input: 0.125, cache_write: 1.25, output: 10 });
    // 400 × 1.25 + 600 × 0.125 + 500 × 10 = 500 + 75 + 5000
    expect(micros(tokens, price)).toBe(5_575);
  });

  it('Anthropic: input_tokens excludes the cache, which the SDK adds back; reads and writes each at their price', () => {
    // Anthropic: input_tokens 200, cache_read_input_tokens 3000, cache_creation_input_tokens 1000, output 100.
    const tokens = tokensOf(sdkUsage({ total: 4200, noCacheTokens: 200, cacheReadTokens: 3000, cacheWriteTokens: 1000 }, { total: 100 }));
    // 200 × 3 + 3000 × 0.3 + 1000 × 3.75 + 100 × 15 = 600 + 900 + 3750 + 1500
    expect(micros(tokens, pricing())).toBe(6_750);
  });

  it('Google: the SDK adds the thinking tokens to the candidates; cached content is part of the prompt', () => {
    // promptTokenCount 2000 (cached 1000), candidatesTokenCount 300, thoughtsTokenCount 700.
    const tokens = tokensOf(
      sdkUsage({ total: 2000, noCacheTokens: 1000, cacheReadTokens: 1000, cacheWriteTokens: undefined }, { total: 1000, reasoning: 700 }),
    );
    const price = pricing({ input: 0.3, cached_input: 0.03, cache_write: 0.3, output: 2.5 });
    // 1000 × 0.3 + 1000 × 0.03 + 1000 × 2.5 = 300 + 30 + 2500
    expect(micros(tokens, price)).toBe(2_830);
  });

  it('prices reasoning tokens apart only where the model bills them apart', () => {
    const tokens = { input: 0, cacheRead: 0, cacheWrite: 0, output: 1000, reasoning: 400 };
    expect(micros(tokens, pricing({ output: 0.6 }))).toBe(600);
    // 600 text tokens × 0.6 + 400 reasoning tokens × 3.5
    expect(micros(tokens, pricing({ output: 0.6, reasoning: 3.5 }))).toBe(360 + 1_400);
  });

  it('reads the deprecated flat counts when the details are missing, and never lets a part exceed its total', () => {
    expect(tokensOf({ inputTokens: 10, cachedInputTokens: 4, outputTokens: 5, reasoningTokens: 2 })).toEqual({
      input: 10,
      cacheRead: 4,
      cacheWrite: 0,
      output: 5,
      reasoning: 2,
    });
    expect(
      tokensOf(sdkUsage({ total: 10, noCacheTokens: 0, cacheReadTokens: 8, cacheWriteTokens: 8 }, { total: 3, reasoning: 9 })),
    ).toEqual({ input: 10, cacheRead: 8, cacheWrite: 2, output: 3, reasoning: 3 });
    expect(tokensOf(undefined)).toEqual({ input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 });
  });

  it('rounds half up, once', () => {
    expect(roundToMicroUsd(1_499_999)).toBe(1);
    expect(roundToMicroUsd(1_500_000)).toBe(2);
    expect(roundToMicroUsd(0)).toBe(0);
    // 3 tokens at 0.5 USD per million: 1.5 micro-USD, rounded up; 1 token at 0.000001: 1 pico-USD.
    expect(micros({ input: 3, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 }, pricing({ input: 0.5 }))).toBe(2);
    expect(callCostPicoUsd({ input: 1, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 }, pricing({ input: 0.000001 }))).toBe(1);
  });

  it('is exact with six-decimal prices (no floating drift)', () => {
    const tokens = { input: 7, cacheRead: 3, cacheWrite: 0, output: 0, reasoning: 0 };
    // 4 × 0.1 + 3 × 0.0375 = 0.4 + 0.1125 micro-USD = 512,500 pico-USD exactly.
    expect(callCostPicoUsd(tokens, pricing({ input: 0.1, cached_input: 0.0375 }))).toBe(512_500);
  });
});

describe('costOfCall', () => {
  const route: ModelRoute = { modelId: 'm', provider: 'p', providerName: 'P', providerApi: 'openai', providerModelId: 'm' };
  const workspaceCredential = new WorkspaceCredential('ws', 'p', 'sk-workspace', null, 'v1');
  const tokens = { input: 10, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 };

  it('charges nothing, unversioned, on a route without a price; hosted credentials unless the route says otherwise', () => {
    expect(costOfCall(route, tokens)).toEqual({ picoUsd: 0, priceVersion: null, credentials: 'hosted' });
    expect(costOfCall({ ...route, pricing: pricing(), workspaceCredential }, tokens, true)).toEqual({
      picoUsd: 180_000_000,
      priceVersion: '2026-11-21',
      credentials: 'workspace',
      estimated: tokens,
    });
  });

  it('adds an answer and its repair', () => {
    const a = costOfCall({ ...route, pricing: pricing(), workspaceCredential }, tokens);
    const b = costOfCall({ ...route, pricing: pricing({ price_version: 'v2' }) }, tokens, true);
    expect(addCallCost(a, b)).toEqual({ picoUsd: 360_000_000, priceVersion: 'v2', credentials: 'hosted', estimated: tokens });
  });
});

describe('estimatedTokens', () => {
  it('counts the prompt from the messages and the completion from what streamed, four characters a token', () => {
    const tokens = estimatedTokens(
      [
        { role: 'system', content: 'x'.repeat(40) },
        { role: 'user', content: [{ type: 'text', text: 'y'.repeat(8) }] },
      ],
      { text: 41, reasoning: 8 },
    );
    expect(tokens).toEqual({ input: 10 + 8 + 2 + 8, cacheRead: 0, cacheWrite: 0, output: 11 + 2, reasoning: 2 });
  });
});

describe('RunCost', () => {
  it('is null all over when no model was called', () => {
    expect(new RunCost().fields()).toEqual({ cost_micros: null, price_version: null, credentials: null });
  });

  it('sums every call and rounds once, naming every price version', () => {
    const run = new RunCost();
    run.add({ picoUsd: 400_000, priceVersion: 'b', credentials: 'workspace' });
    run.add({ picoUsd: 400_000, priceVersion: 'a', credentials: 'workspace' });
    run.add({
      picoUsd: 400_000,
      priceVersion: 'a',
      credentials: 'workspace',
      estimated: { input: 5, cacheRead: 0, cacheWrite: 0, output: 3, reasoning: 1 },
    });
    // 1.2 micro-USD: each call alone would round to 0.
    expect(run.fields()).toEqual({ cost_micros: 1, price_version: 'a,b', credentials: 'workspace' });
    expect(run.estimatedUsage()).toEqual({
      prompt_tokens: { total_tokens: 5, cached_tokens: 0 },
      completion_tokens: { total_tokens: 3, reasoning_tokens: 1 },
      total_tokens: 8,
      estimated: true,
    });
  });

  it('says hosted when any call used the operator credentials, and no cost when no call had a price', () => {
    const run = new RunCost();
    run.add({ picoUsd: 0, priceVersion: null, credentials: 'workspace' });
    run.add({ picoUsd: 0, priceVersion: null, credentials: 'hosted' });
    expect(run.fields()).toEqual({ cost_micros: null, price_version: null, credentials: 'hosted' });
    expect(run.estimatedUsage()).toBeNull();
  });

  it("adds parts (a workflow's steps) unrounded, so the run rounds its whole sum once", () => {
    const first = new RunCost();
    first.add({ picoUsd: 2_500_000, priceVersion: 'b', credentials: 'workspace' });
    const second = new RunCost();
    second.add({ picoUsd: 2_500_000, priceVersion: 'a', credentials: 'hosted' });
    second.add({ picoUsd: 0, priceVersion: null, credentials: 'workspace' });
    const unpriced = new RunCost();
    unpriced.add({ picoUsd: 0, priceVersion: null, credentials: 'workspace' });
    expect(first.part()).toEqual({ picoUsd: 2_500_000, priceVersion: 'b', credentials: 'workspace' });
    expect(second.part()).toEqual({ picoUsd: 2_500_000, priceVersion: 'a', credentials: 'hosted' });
    expect(unpriced.part()).toEqual({ picoUsd: null, priceVersion: null, credentials: 'workspace' });
    expect(new RunCost().part()).toEqual({ picoUsd: null, priceVersion: null, credentials: null });

    const run = new RunCost();
    for (const part of [first.part(), second.part(), unpriced.part(), new RunCost().part()]) run.addPart(part);
    // 5 micro-USD: each part alone rounds to 3 (2.5 half up).
    expect(run.fields()).toEqual({ cost_micros: 5, price_version: 'a,b', credentials: 'hosted' });
    const replayed = new RunCost();
    replayed.addPart(run.part());
    expect(replayed.fields()).toEqual(run.fields());
  });

  it('keeps workspace credentials and no cost for parts that are all unpriced on workspace keys', () => {
    const step = new RunCost();
    step.add({ picoUsd: 0, priceVersion: null, credentials: 'workspace' });
    const run = new RunCost();
    run.addPart(step.part());
    run.addPart(new RunCost().part());
    expect(run.fields()).toEqual({ cost_micros: null, price_version: null, credentials: 'workspace' });
  });
});
