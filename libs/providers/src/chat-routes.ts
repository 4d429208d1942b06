import type { ModelRoute as CatalogModelRoute } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { ModelRoutes } from './model-routes';
import type { ProviderRegistry } from './registry';
import { toModelRoute, type ModelRoute } from './types';

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
 * provider without credentials config_error.
 */
export async function resolveChatRoute(
  routes: ModelRoutes,
  registry: ProviderRegistry,
  modelId: string,
  needs: ChatRouteNeeds = {},
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
  const route = toModelRoute(catalog);
  registry.languageModel(route);
  return { catalog, route };
}
