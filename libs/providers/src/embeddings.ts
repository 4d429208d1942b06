import { embed, embedMany } from 'ai';
import { modelCallTelemetry } from './model-telemetry';
import { compatibleOptionsKey, type ProviderRegistry } from './registry';
import { recordedCallFailure, recordProviderCall } from './provider-metrics';
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
  const request = {
    model,
    maxRetries: registry.settings.maxRetries,
    abortSignal: call.abortSignal,
    ...(providerOptions && { providerOptions }),
    ...modelCallTelemetry(undefined),
  };
  const startedAt = performance.now();
  try {
    // One text goes through `embed`, which skips the batching `embedMany` does.
    const result =
      call.values.length === 1
        ? await embed({ ...request, value: call.values[0] }).then((one) => ({ embeddings: [one.embedding], tokens: one.usage.tokens }))
        : await embedMany({ ...request, values: call.values }).then((many) => ({ embeddings: many.embeddings, tokens: many.usage.tokens }));
    recordProviderCall(route, startedAt, { outcome: 'ok', inputTokens: result.tokens });
    return { ...result, model: route.modelId };
  } catch (error) {
    throw recordedCallFailure(error, route, startedAt, call.abortSignal);
  }
}
