import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AssetPatterns, ListPage, send, type AssetRecord } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import { lastValueFrom, toArray } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';
import { AssetListDto } from './asset.dto';

/**
 * First-party: the key's workspace's assets a page at a time, for the console's Assets table.
 * The public list answers every asset at once; this one pages with a cursor (newest first).
 */
@ApiTags('assets')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/assets')
@PrivateApiRoute()
export class PrivateAssetsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The workspace's assets, newest first (created_at, then id); the next page after `before`. */
  @Get()
  @ApiQuery({ name: 'limit', required: false, type: 'integer', minimum: 1, maximum: 1000, description: 'Default 50' })
  @ApiQuery({ name: 'before', required: false, type: String, description: 'The last asset `id` of the page before' })
  @ApiOkResponse({ type: AssetListDto })
  @ApiResponse({ status: 422, description: 'An invalid limit or cursor (validation_error)', type: ErrorBodyDto })
  async list(@Query() query: ListPage, @Req() request: AuthenticatedRequest): Promise<{ assets: AssetRecord[] }> {
    const chunks$ = send(this.rpc, AssetPatterns.pageAssets, { workspace_id: request.auth.workspace_id, ...query });
    return { assets: (await lastValueFrom(chunks$.pipe(toArray()))).flat() };
  }
}
