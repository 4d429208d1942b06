import { Controller, Get, Inject } from '@nestjs/common';
import { CatalogPatterns, sendRpc, type PublicModel } from '@waggle/contracts';
import { APP_ENV, NatsRpcClient } from '@waggle/platform';
import { MeteredApiRoute } from '../auth/authenticated.decorator';
import type { GatewayEnv } from '../config/gateway.env';

/** The active model catalog, on both of the spec's paths. */
@Controller()
@MeteredApiRoute()
export class ModelsController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: GatewayEnv,
  ) {}

  /** `provider` is the serving provider's key. */
  @Get('v1/public/models')
  listPublic(): Promise<PublicModel[]> {
    return this.list('serving');
  }

  /** The same list with `provider` resolved to the model's maker. */
  @Get('v1/models')
  listByMaker(): Promise<PublicModel[]> {
    return this.list('maker');
  }

  private list(providerView: 'serving' | 'maker'): Promise<PublicModel[]> {
    return sendRpc(this.rpc, CatalogPatterns.listModels, { provider_view: providerView }, { timeoutMs: this.env.NATS_REQUEST_TIMEOUT_MS });
  }
}
