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

describe('jsonSchemaOutput', () => {
  it('asks for the schema and hands back the raw text, even when it is not JSON', async () => {
    const output = jsonSchemaOutput({ type: 'json_schema', name: 'answer', schema: { type: 'object' } });
    await expect(output.responseFormat).resolves.toEqual({ type: 'json', name: 'answer', schema: { type: 'object' } });
    const context = { response: { id: '', timestamp: new Date(0), modelId: 'm' }, usage: {} as never, finishReason: 'length' as const };
    await expect(output.parseCompleteOutput({ text: '{"cut' }, context)).resolves.toBe('{"cut');
  });
});
