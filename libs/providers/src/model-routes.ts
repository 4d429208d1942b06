import { CatalogPatterns, send, type ModelRoute as CatalogModelRoute, type RpcTransport } from '@waggle/contracts';

/** Catalog answers change only when an operator loads a new catalog file. */
export const ROUTE_CACHE_MS = 10_000;

/**
 * Looks up how to call a model, from the catalog service, with a short cache: every prompt
 * run, agent turn, workflow step and knowledge-base embedding needs one, and asking the
 * catalog each time would add a NATS round trip to each. A failed lookup is not cached.
 */
export class ModelRoutes {
  private readonly cache = new Map<string, { route: Promise<CatalogModelRoute>; expiresAt: number }>();

  /** `now` is a parameter so the cache's expiry is testable without waiting. */
  constructor(
    private readonly catalog: RpcTransport,
    private readonly now: () => number = Date.now,
  ) {}

  get(modelId: string): Promise<CatalogModelRoute> {
    const now = this.now();
    const cached = this.cache.get(modelId);
    if (cached && cached.expiresAt > now) return cached.route;
    const route = send(this.catalog, CatalogPatterns.getModelRoute, { model_id: modelId });
    this.cache.set(modelId, { route, expiresAt: now + ROUTE_CACHE_MS });
    route.catch(() => this.cache.delete(modelId));
    return route;
  }
}
