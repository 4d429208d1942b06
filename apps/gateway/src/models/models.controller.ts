import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CatalogPatterns, send, type PublicModel } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { MeteredApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto, RateLimitErrorBodyDto } from '../errors/error-body.dto';
import { PublicModelDto } from './public-model.dto';

/** The active model catalog, on both of the spec's paths. */
@ApiTags('models')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@ApiResponse({ status: 429, description: 'Daily API request cap reached', type: RateLimitErrorBodyDto })
@Controller()
@MeteredApiRoute()
export class ModelsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** `provider` is the serving provider's key. */
  @Get('v1/public/models')
  @ApiOkResponse({ description: 'Active chat and image-generation models', type: [PublicModelDto] })
  listPublic(): Promise<PublicModel[]> {
    return this.list('serving');
  }

  /** The same list with `provider` resolved to the model's maker. */
  @Get('v1/models')
  listByMaker(): Promise<PublicModel[]> {
    return this.list('maker');
  }

  private list(providerView: 'serving' | 'maker'): Promise<PublicModel[]> {
    return send(this.rpc, CatalogPatterns.listModels, { provider_view: providerView });
  }
}
