import { Inject, Injectable } from '@nestjs/common';
import { CatalogPatterns, sendRpc, type ModelRoute } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';

/** Catalog answers change only when an operator loads a new catalog file. */
const ROUTE_CACHE_MS = 10_000;
const CATALOG_TIMEOUT_MS = 5_000;

/** Looks up how to call a model, from the catalog service, with a short cache. */
@Injectable()
export class ModelRoutes {
  private readonly cache = new Map<string, { route: Promise<ModelRoute>; expiresAt: number }>();

  constructor(@Inject(NatsRpcClient) private readonly rpc: NatsRpcClient) {}

  get(modelId: string): Promise<ModelRoute> {
    const now = Date.now();
    const cached = this.cache.get(modelId);
    if (cached && cached.expiresAt > now) return cached.route;
    const route = sendRpc(this.rpc, CatalogPatterns.getModelRoute, { model_id: modelId }, { timeoutMs: CATALOG_TIMEOUT_MS });
    this.cache.set(modelId, { route, expiresAt: now + ROUTE_CACHE_MS });
    route.catch(() => this.cache.delete(modelId));
    return route;
  }
}
