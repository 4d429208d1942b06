import { WaggleException } from '@waggle/errors';
import { embedTexts, type ModelRoute, type ProviderRegistry } from '@waggle/providers';

/** Embeds texts with a catalog embedding model, one vector per text in order. */
export abstract class ChunkEmbedder {
  abstract embed(modelId: string, texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/**
 * Embeds through the provider layer (OpenAI, Ollama, any OpenAI-compatible host, the local
 * model), `batchSize` texts a request, one request at a time: the local model spreads each
 * batch over its worker pool, and a remote host is not flooded by one big item.
 */
export class ProviderChunkEmbedder extends ChunkEmbedder {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly route: (modelId: string) => Promise<ModelRoute>,
    private readonly batchSize: number,
  ) {
    super();
  }

  async embed(modelId: string, texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const route = await this.route(modelId);
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      signal?.throwIfAborted();
      const values = texts.slice(start, start + this.batchSize);
      const result = await embedTexts(this.registry, route, { values, abortSignal: signal });
      if (result.embeddings.length !== values.length) {
        throw new WaggleException('provider_error', {
          detail: 'embedding_count',
          params: { provider: route.providerName, count: result.embeddings.length, expected: values.length },
          details: { provider: route.provider },
        });
      }
      vectors.push(...result.embeddings);
    }
    return vectors;
  }
}
