import { embed, embedMany } from 'ai';
import { compatibleOptionsKey, type ProviderRegistry } from './registry';
import { abortReason, providerFailure } from './failures';
import type { EmbeddingCall, EmbeddingResult, ModelRoute } from './types';

type EmbedProviderOptions = NonNullable<Parameters<typeof embedMany>[0]['providerOptions']>;

/** Where each provider takes a shorter vector length from. */
function dimensionOptions(route: ModelRoute, dimensions: number | undefined): EmbedProviderOptions | undefined {
  if (dimensions === undefined) return undefined;
  switch (route.providerApi) {
    case 'openai':
      return { openai: { dimensions } };
    case 'openai-compatible':
      return { [compatibleOptionsKey(route.provider)]: { dimensions } };
    case 'google':
      return { google: { outputDimensionality: dimensions } };
    case 'anthropic':
    case 'local':
      return undefined;
  }
}

/**
 * Embeds texts with the route's embedding model, one vector per text in order (the SDK
 * splits long lists into the provider's batch size). Rejects with config_error before any
 * request when the provider is not configured or has no embeddings API, provider_error when
 * the provider fails, and the signal's reason when aborted.
 */
export async function embedTexts(registry: ProviderRegistry, route: ModelRoute, call: EmbeddingCall): Promise<EmbeddingResult> {
  const model = registry.embeddingModel(route);
  const providerOptions = dimensionOptions(route, call.dimensions);
  const request = { model, maxRetries: registry.settings.maxRetries, abortSignal: call.abortSignal, ...(providerOptions && { providerOptions }) };
  try {
    // One text goes through `embed`, which skips the batching `embedMany` does.
    if (call.values.length === 1) {
      const result = await embed({ ...request, value: call.values[0] });
      return { embeddings: [result.embedding], tokens: result.usage.tokens, model: route.modelId };
    }
    const result = await embedMany({ ...request, values: call.values });
    return { embeddings: result.embeddings, tokens: result.usage.tokens, model: route.modelId };
  } catch (error) {
    if (call.abortSignal?.aborted) throw abortReason(call.abortSignal);
    throw providerFailure(error, route);
  }
}
