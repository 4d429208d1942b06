import type { generateText, JSONSchema7, JSONValue, OutputInterface } from 'ai';
import { compatibleOptionsKey } from './registry';
import type { JsonSchemaResponseFormat, ModelRoute, PromptParams } from './types';

type ProviderOptions = NonNullable<Parameters<typeof generateText>[0]['providerOptions']>;

/** The SDK call settings a prompt's parameters become for one route. */
export interface CallSettings {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  providerOptions?: ProviderOptions;
}

function providerSpecific(route: ModelRoute, params: PromptParams): ProviderOptions | undefined {
  const { reasoningEffort, thinkingBudget } = params;
  // Native structured output (D42): OpenAI's json_schema with its strict flag (the SDK would
  // default it to true, which refuses many ordinary schemas), Anthropic's forced `json` tool.
  const format = route.nativeJsonSchema ? params.responseFormat : undefined;
  const strict = format && { strictJsonSchema: format.strict ?? false };
  switch (route.providerApi) {
    case 'openai':
      return reasoningEffort || strict ? { openai: { ...(reasoningEffort && { reasoningEffort }), ...strict } } : undefined;
    case 'openai-compatible':
      return reasoningEffort || strict
        ? { [compatibleOptionsKey(route.provider)]: { ...(reasoningEffort && { reasoningEffort }), ...strict } }
        : undefined;
    case 'anthropic': {
      const thinking = thinkingBudget !== undefined && { thinking: { type: 'enabled', budgetTokens: thinkingBudget } };
      return thinking || format
        ? { anthropic: { ...thinking, ...(format && { structuredOutputMode: 'jsonTool' }) } as Record<string, JSONValue> }
        : undefined;
    }
    case 'google': {
      if (reasoningEffort === undefined && thinkingBudget === undefined) return undefined;
      const thinkingConfig: Record<string, JSONValue> = { includeThoughts: true };
      if (thinkingBudget !== undefined) thinkingConfig.thinkingBudget = thinkingBudget;
      if (reasoningEffort !== undefined) thinkingConfig.thinkingLevel = reasoningEffort;
      return { google: { thinkingConfig } };
    }
  }
}

/**
 * Maps the provider-neutral parameters. Reasoning effort reaches OpenAI and OpenAI-compatible
 * hosts as `reasoning_effort` and Google as `thinkingLevel`; the thinking budget reaches
 * Anthropic as extended thinking and Google as `thinkingBudget`. A parameter a provider has
 * no equivalent for is left out rather than guessed.
 */
export function toCallSettings(route: ModelRoute, params: PromptParams = {}): CallSettings {
  const providerOptions = providerSpecific(route, params);
  return {
    ...(params.temperature !== undefined && { temperature: params.temperature }),
    ...(params.topP !== undefined && { topP: params.topP }),
    ...(params.maxOutputTokens !== undefined && { maxOutputTokens: params.maxOutputTokens }),
    ...(params.stop !== undefined && params.stop.length > 0 && { stopSequences: params.stop }),
    ...(params.seed !== undefined && { seed: params.seed }),
    ...(providerOptions && { providerOptions }),
  };
}

/**
 * Asks the provider for JSON matching the schema but hands back the raw text: a prompt run
 * answers the model's text as is, and the SDK's own object output would throw on text cut
 * short by max tokens.
 */
export function jsonSchemaOutput(format: JsonSchemaResponseFormat): OutputInterface<string, string, never> {
  return {
    name: 'json_schema',
    responseFormat: Promise.resolve({
      type: 'json',
      schema: format.schema as JSONSchema7,
      ...(format.name !== undefined && { name: format.name }),
    }),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async ({ text }) => ({ partial: text }),
    createElementStreamTransform: () => undefined,
  };
}
