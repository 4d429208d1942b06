import { Global, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { ModelRoute as CatalogModelRoute, RpcTransport } from '@waggle/contracts';
import { Observable, of, throwError } from 'rxjs';
import { ModelRoutes, ROUTE_CACHE_MS } from './model-routes';
import { PROVIDER_SETTINGS, ProvidersModule } from './providers.module';
import { ProviderRegistry } from './registry';
import type { ProviderEnv } from './settings';

/** Answers route lookups from a table and counts them: the catalog's side of the NATS request. */
class CatalogTable implements RpcTransport {
  readonly asked: string[] = [];
  constructor(private readonly routes: Record<string, Partial<CatalogModelRoute>>) {}

  request(pattern: string, payload: unknown): Observable<unknown> {
    const modelId = (payload as { model_id: string }).model_id;
    this.asked.push(`${pattern} ${modelId}`);
    const route = this.routes[modelId];
    return route ? of(route) : throwError(() => new Error(`no route for ${modelId}`));
  }
}

const CATALOG = Symbol('catalog transport');

async function appWith(env: ProviderEnv, catalog: RpcTransport): Promise<INestApplicationContext> {
  @Global()
  @Module({ providers: [{ provide: CATALOG, useValue: catalog }], exports: [CATALOG] })
  class CatalogModule {}

  @Module({ imports: [CatalogModule, ProvidersModule.forRoot({ env, catalogTransport: CATALOG })] })
  class AppModule {}

  return NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
}

describe('ProvidersModule.forRoot', () => {
  it('provides one registry built from the validated env, and model routes over the catalog transport', async () => {
    const catalog = new CatalogTable({ 'fake-chat': { id: 'fake-chat', provider: 'fake', provider_api: 'openai-compatible' } });
    const app = await appWith({ FAKE_API_KEY: 'k', FAKE_BASE_URL: 'http://127.0.0.1:9/v1', PROVIDER_MAX_RETRIES: 0 }, catalog);
    try {
      expect(app.get(PROVIDER_SETTINGS)).toEqual({ endpoints: { FAKE: { apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' } }, maxRetries: 0 });
      expect(app.get(ProviderRegistry).settings).toBe(app.get(PROVIDER_SETTINGS));
      await expect(app.get(ModelRoutes).get('fake-chat')).resolves.toMatchObject({ provider: 'fake' });
      expect(catalog.asked).toEqual(['catalog.models.route fake-chat']);
    } finally {
      await app.close();
    }
  });

  it('fails the app at start with config_error naming the variable when a base URL is not http(s)', async () => {
    // An env object that skipped class validation still cannot smuggle in a bad URL.
    await expect(appWith({ GROQ_BASE_URL: 'ftp://user:secret@host' }, new CatalogTable({}))).rejects.toMatchObject({
      code: 'config_error',
      message: 'GROQ_BASE_URL is not an http(s) URL',
    });
  });
});

describe('ModelRoutes', () => {
  it('answers repeated lookups from its cache until it expires, and does not keep failures', async () => {
    let now = 1_000;
    const catalog = new CatalogTable({ a: { id: 'a' } });
    const routes = new ModelRoutes(catalog, () => now);
    await routes.get('a');
    await routes.get('a');
    expect(catalog.asked).toHaveLength(1);
    now += ROUTE_CACHE_MS;
    await routes.get('a');
    expect(catalog.asked).toHaveLength(2);
    await expect(routes.get('missing')).rejects.toThrow('no route for missing');
    await expect(routes.get('missing')).rejects.toThrow('no route for missing');
    expect(catalog.asked.filter((entry) => entry.endsWith('missing'))).toHaveLength(2);
  });
});
