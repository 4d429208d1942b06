import { Inject, Injectable } from '@nestjs/common';
import { WaggleException, type ErrorDetail } from '@waggle/errors';
import { APP_ENV } from '@waggle/platform';
import { embedTexts, ModelRoutes, ProviderRegistry, toModelRoute, type ModelRoute } from '@waggle/providers';
import type { InvocationEnv } from '../../config/invocation.env';
import { catalogRefusal } from './catalog-refusal';
import { cosine } from './scoring';

/**
 * The embeddings of the `similarity` evaluator: the model EXPERIMENT_EMBEDDING_MODEL names (by
 * default the local one the knowledge base uses, which needs no key or network), looked up in
 * the catalog and called through the provider layer as the knowledge base calls it.
 */
@Injectable()
export class EmbeddingSimilarity {
  constructor(
    private readonly registry: ProviderRegistry,
    private readonly routes: ModelRoutes,
    @Inject(APP_ENV) private readonly env: Pick<InvocationEnv, 'EXPERIMENT_EMBEDDING_MODEL'>,
  ) {}

  get model(): string {
    return this.env.EXPERIMENT_EMBEDDING_MODEL;
  }

  /**
   * Why the model cannot embed here (not in the catalog, not an embedding model, its provider
   * not configured), or undefined when it can. A catalog that does not answer rejects: that is
   * an outage, not the run's problem.
   */
  async problem(): Promise<ErrorDetail | undefined> {
    try {
      await this.route();
      return undefined;
    } catch (error) {
      const reason = catalogRefusal(error, this.model);
      return { detail: 'evaluator_similarity_unavailable', params: { model: this.model, reason } };
    }
  }

  /** Cosine similarity of the two texts' embeddings; an empty text is similar to nothing (0). */
  async similarity(a: string, b: string, signal: AbortSignal): Promise<number> {
    if (a.trim() === '' || b.trim() === '') return 0;
    const route = await this.route();
    const { embeddings } = await embedTexts(this.registry, route, { values: [a, b], abortSignal: signal });
    return cosine(embeddings[0] ?? [], embeddings[1] ?? []);
  }

  private async route(): Promise<ModelRoute> {
    const catalog = await this.routes.get(this.model);
    if (catalog.model_type !== 'embedding') throw new WaggleException('config_error', { detail: 'evaluator_not_embedding_model' });
    const route = toModelRoute(catalog);
    // Throws config_error when the provider is not configured or has no embeddings API.
    this.registry.embeddingModel(route);
    return route;
  }
}
