import type { ModelRoute as CatalogModelRoute, RpcTransport } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { Observable, of, throwError } from 'rxjs';
import { resolveChatRoute } from './chat-routes';
import { ModelRoutes } from './model-routes';
import { ProviderRegistry } from './registry';

const chat: CatalogModelRoute = {
  id: 'fake-chat',
  name: 'Fake Chat',
  provider: 'fake',
  provider_name: 'Fake',
  provider_api: 'openai-compatible',
  provider_model_id: 'chat-1',
  model_type: 'llm',
  is_vision: false,
  is_tool_calling: true,
  is_json_schema: false,
  context_limit: 8_000,
  status: 'active',
  pricing: null,
};

/** The catalog's side of the lookup: a table, and resource_not_found for an id it lacks. */
function catalogOf(routes: CatalogModelRoute[]): RpcTransport {
  return {
    request(_pattern: string, payload: unknown): Observable<unknown> {
      const route = routes.find((candidate) => candidate.id === (payload as { model_id: string }).model_id);
      return route
        ? of(route)
        : throwError(
            () =>
              new WaggleException('resource_not_found', {
                detail: 'model_not_found',
                params: { id: (payload as { model_id: string }).model_id },
              }),
          );
    },
  };
}

const registry = new ProviderRegistry({ endpoints: { FAKE: { apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' } }, maxRetries: 0 });

async function refusal(routes: CatalogModelRoute[], modelId: string, images = false): Promise<{ code: string; status: number }> {
  const error = await resolveChatRoute(new ModelRoutes(catalogOf(routes)), registry, modelId, { images }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof WaggleException)) throw new Error(`expected a refusal of ${modelId}, got ${String(error)}`);
  return { code: error.code, status: error.status };
}

describe('resolveChatRoute', () => {
  it("answers the catalog's route and the provider layer's route of a callable chat model", async () => {
    const resolved = await resolveChatRoute(new ModelRoutes(catalogOf([chat])), registry, 'fake-chat', { images: false });
    expect(resolved).toEqual({
      catalog: chat,
      route: { modelId: 'fake-chat', provider: 'fake', providerName: 'Fake', providerApi: 'openai-compatible', providerModelId: 'chat-1' },
    });
  });

  it('calls an unknown and a deprecated model deprecated', async () => {
    expect(await refusal([chat], 'gone')).toMatchObject({ code: 'model_deprecated' });
    expect(await refusal([{ ...chat, status: 'deprecated' }], 'fake-chat')).toMatchObject({ code: 'model_deprecated' });
  });

  it('refuses a model that is not a chat model', async () => {
    expect(await refusal([{ ...chat, model_type: 'embedding' }], 'fake-chat')).toMatchObject({ code: 'unsupported_resource_type' });
  });

  it('refuses images for a model that cannot see, and takes them for one that can', async () => {
    expect(await refusal([chat], 'fake-chat', true)).toMatchObject({ code: 'vision_not_supported' });
    const vision = { ...chat, is_vision: true };
    await expect(resolveChatRoute(new ModelRoutes(catalogOf([vision])), registry, 'fake-chat', { images: true })).resolves.toMatchObject({
      catalog: vision,
    });
  });

  it('answers config_error for a provider without credentials, before any call', async () => {
    expect(await refusal([{ ...chat, provider: 'unset', provider_name: 'Unset' }], 'fake-chat')).toMatchObject({ code: 'config_error' });
  });

  it('passes other lookup failures through', async () => {
    const down: RpcTransport = {
      request: () => throwError(() => new WaggleException('upstream_request_failed', { status: 504 })),
    };
    await expect(resolveChatRoute(new ModelRoutes(down), registry, 'fake-chat')).rejects.toMatchObject({ code: 'upstream_request_failed' });
  });
});
