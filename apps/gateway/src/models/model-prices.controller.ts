import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CatalogPatterns, send } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { ModelPriceListDto } from './model-price.dto';

/**
 * The prices a workspace's runs are charged (the spec's decisions on usage governance), read
 * only: prices are operator-wide, set with the operator CLI (`waggle model price set`), so no
 * workspace key can change them. Documented in the OpenAPI document although private.
 */
@ApiTags('model_prices')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/model_prices')
@PrivateApiRoute()
export class ModelPricesController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The effective price of every listed model, in USD per million tokens. */
  @Get()
  @ApiOkResponse({ type: ModelPriceListDto })
  async list(): Promise<ModelPriceListDto> {
    const views = await send(this.rpc, CatalogPatterns.listModelPrices, {});
    return { model_prices: views.map(({ model, name, pricing }) => ({ model, name, pricing })) };
  }
}
