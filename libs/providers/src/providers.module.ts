import { Module, type DynamicModule, type InjectionToken } from '@nestjs/common';
import type { RpcTransport } from '@waggle/contracts';
import type { Dispatcher } from 'undici';
import { ModelRoutes } from './model-routes';
import { ProviderRegistry } from './registry';
import { providerSettingsFromEnv, type ProviderEnv, type ProviderSettings } from './settings';

/** The settings the module was built with, for code that calls the SDK helpers itself. */
export const PROVIDER_SETTINGS = Symbol('waggle:provider-settings');

export interface ProvidersModuleOptions {
  /** The app's validated env object; its class declares the provider variables (WithProviderCredentials). */
  env: ProviderEnv;
  /**
   * The token of the NATS client the catalog answers model routes over (the platform's
   * NatsRpcClient). A token rather than the class: this library may not import the platform.
   */
  catalogTransport: InjectionToken;
  /** The connections to base URLs workspaces gave with their keys (the SSRF-guarded dispatcher); see ProviderRegistryOptions. */
  workspaceDispatcher?: Dispatcher;
}

/**
 * The provider layer of a service: one ProviderRegistry (model objects built once per
 * route) and one ModelRoutes cache, global so every feature module of the app shares them.
 * Bad provider settings fail the app at start with config_error.
 */
@Module({})
export class ProvidersModule {
  static forRoot(options: ProvidersModuleOptions): DynamicModule {
    return {
      module: ProvidersModule,
      global: true,
      providers: [
        { provide: PROVIDER_SETTINGS, useFactory: () => providerSettingsFromEnv(options.env) },
        {
          provide: ProviderRegistry,
          useFactory: (settings: ProviderSettings) => new ProviderRegistry(settings, { workspaceDispatcher: options.workspaceDispatcher }),
          inject: [PROVIDER_SETTINGS],
        },
        { provide: ModelRoutes, useFactory: (catalog: RpcTransport) => new ModelRoutes(catalog), inject: [options.catalogTransport] },
      ],
      exports: [PROVIDER_SETTINGS, ProviderRegistry, ModelRoutes],
    };
  }
}
