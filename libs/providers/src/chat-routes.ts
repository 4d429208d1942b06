import type { ModelRoute as CatalogModelRoute } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { ModelRoutes } from './model-routes';
import type { ProviderRegistry } from './registry';
import { toModelRoute, type ModelRoute } from './types';
import { withRunCredentials, type RunCredentials } from './workspace-credentials';

/** A chat model a run may call: the catalog's answer and the provider layer's route. */
export interface ChatRoute {
  catalog: CatalogModelRoute;
  route: ModelRoute;
}

export interface ChatRouteNeeds {
  /** The run sends images, so the model must see them. */
  images?: boolean;
}

/**
 * How a prompt run, a workflow step or an agent turn calls a chat model, refused before
 * anything is recorded or sent: an id the catalog does not know (or no longer knows) and a
 * deprecated model answer model_deprecated, a model that is not a chat model
 * unsupported_resource_type, images for a model that cannot see vision_not_supported, and a
 * provider without credentials config_error. With `credentials` (a run's), the route carries the
 * workspace's own key or is refused as withRunCredentials refuses it (422 missing credentials,
 * 402 hosted credits used up).
 */
export async function resolveChatRoute(
  routes: ModelRoutes,
  registry: ProviderRegistry,
  modelId: string,
  needs: ChatRouteNeeds = {},
  credentials?: RunCredentials,
): Promise<ChatRoute> {
  const catalog = await routes.get(modelId).catch((error: unknown) => {
    if (error instanceof WaggleException && error.code === 'resource_not_found')
      throw new WaggleException('model_deprecated', { params: { model: modelId } });
    throw error;
  });
  if (catalog.status === 'deprecated') throw new WaggleException('model_deprecated', { params: { model: catalog.name } });
  if (catalog.model_type !== 'llm')
    throw new WaggleException('unsupported_resource_type', { detail: 'not_a_chat_model', params: { model: catalog.name } });
  if (needs.images && !catalog.is_vision) throw new WaggleException('vision_not_supported');
  const route = await withRunCredentials(toModelRoute(catalog), credentials);
  registry.languageModel(route);
  return { catalog, route };
}

/** A run's model, and the models that may answer in its place (D41), as the provider layer calls them. */
export interface ModelChain extends ChatRoute {
  /** The model first, then each fallback that can still be called. */
  routes: ModelRoute[];
}

/**
 * resolveChatRoute for a run's model and its fallbacks. The model is refused as
 * resolveChatRoute refuses it. A fallback that can no longer be called (gone from the
 * catalog or deprecated since it was applied, its provider unconfigured, or unable to do
 * what this run needs, or, on the workspace's keys, with none stored for its provider) is left
 * out rather than failing a run its model may answer.
 */
export async function resolveModelChain(
  routes: ModelRoutes,
  registry: ProviderRegistry,
  modelId: string,
  fallbacks: readonly string[] = [],
  needs: ChatRouteNeeds = {},
  credentials?: RunCredentials,
): Promise<ModelChain> {
  const [first, ...others] = await Promise.all([
    resolveChatRoute(routes, registry, modelId, needs, credentials),
    ...fallbacks.map((fallback) => resolveChatRoute(routes, registry, fallback, needs, credentials).catch(() => null)),
  ]);
  const usable = (others as (ChatRoute | null)[]).filter((link): link is ChatRoute => link !== null);
  return { ...(first as ChatRoute), routes: [(first as ChatRoute).route, ...usable.map((link) => link.route)] };
}
