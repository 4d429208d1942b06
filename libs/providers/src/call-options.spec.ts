import { jsonSchemaOutput, toCallSettings } from './call-options';
import type { ModelRoute } from './types';

const route = (provider: string, providerApi: ModelRoute['providerApi']): ModelRoute => ({
  modelId: 'm',
  provider,
  providerName: provider,
  providerApi,
  providerModelId: 'm',
});

describe('toCallSettings', () => {
  it('maps the standard parameters and leaves unset ones out', () => {
    expect(toCallSettings(route('openai', 'openai'), { temperature: 0.2, topP: 0.9, maxOutputTokens: 512, stop: ['END'] })).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxOutputTokens: 512,
      stopSequences: ['END'],
    });
    expect(toCallSettings(route('openai', 'openai'))).toEqual({});
    expect(toCallSettings(route('openai', 'openai'), { stop: [] })).toEqual({});
  });

  it('sends reasoning effort to OpenAI and to an OpenAI-compatible host under its own name', () => {
    expect(toCallSettings(route('openai', 'openai'), { reasoningEffort: 'high', thinkingBudget: 100 }).providerOptions).toEqual({
      openai: { reasoningEffort: 'high' },
    });
    expect(toCallSettings(route('deepseek', 'openai-compatible'), { reasoningEffort: 'low' }).providerOptions).toEqual({
      deepseek: { reasoningEffort: 'low' },
    });
  });

  it('sends the thinking budget to Anthropic as extended thinking', () => {
    expect(toCallSettings(route('anthropic', 'anthropic'), { thinkingBudget: 2048, reasoningEffort: 'high' }).providerOptions).toEqual({
      anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } },
    });
    expect(toCallSettings(route('anthropic', 'anthropic'), { reasoningEffort: 'high' })).toEqual({});
  });

  it('sends both to Google as thinkingConfig, with the thoughts included', () => {
    expect(toCallSettings(route('google', 'google'), { thinkingBudget: 1024, reasoningEffort: 'minimal' }).providerOptions).toEqual({
      google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024, thinkingLevel: 'minimal' } },
    });
  });
});

describe('toCallSettings with a response format (D42)', () => {
  const format = { type: 'json_schema' as const, name: 'place', schema: { type: 'object' } };
  it('asks natively only when the catalog says the model can, with the strict flag as set (default false)', () => {
    expect(toCallSettings({ ...route('openai', 'openai'), nativeJsonSchema: true }, { responseFormat: format }).providerOptions).toEqual({
      openai: { strictJsonSchema: false },
    });
    expect(
      toCallSettings(
        { ...route('groq', 'openai-compatible'), nativeJsonSchema: true },
        { responseFormat: { ...format, strict: true }, reasoningEffort: 'low' },
      ).providerOptions,
    ).toEqual({ groq: { reasoningEffort: 'low', strictJsonSchema: true } });
    expect(toCallSettings(route('openai', 'openai'), { responseFormat: format })).toEqual({});
  });

  it("uses Anthropic's forced json tool, beside extended thinking", () => {
    expect(
      toCallSettings({ ...route('anthropic', 'anthropic'), nativeJsonSchema: true }, { responseFormat: format, thinkingBudget: 1024 })
        .providerOptions,
    ).toEqual({ anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 }, structuredOutputMode: 'jsonTool' } });
  });
});

describe('jsonSchemaOutput', () => {
  it('asks for the schema and hands back the raw text, even when it is not JSON', async () => {
    const output = jsonSchemaOutput({ type: 'json_schema', name: 'answer', schema: { type: 'object' } });
    await expect(output.responseFormat).resolves.toEqual({ type: 'json', name: 'answer', schema: { type: 'object' } });
    const context = { response: { id: '', timestamp: new Date(0), modelId: 'm' }, usage: {} as never, finishReason: 'length' as const };
    await expect(output.parseCompleteOutput({ text: '{"cut' }, context)).resolves.toBe('{"cut');
  });
});
