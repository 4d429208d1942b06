import { Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CallbackPatterns, ListDeliveriesFilter, send, type DeliverySummary } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';

/** The callback delivery log: every delivery with its attempts, and redelivery. */
@ApiExcludeController()
@Controller('v1/private/deliveries')
@PrivateApiRoute()
export class PrivateDeliveriesController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  async list(@Query() query: ListDeliveriesFilter, @Req() request: AuthenticatedRequest): Promise<{ deliveries: DeliverySummary[] }> {
    return {
      deliveries: await send(this.rpc, CallbackPatterns.listDeliveries, { workspace_id: request.auth.workspace_id, ...query }),
    };
  }

  @Get(':delivery_id')
  async get(@Param('delivery_id') deliveryId: string, @Req() request: AuthenticatedRequest): Promise<{ delivery: DeliverySummary }> {
    return {
      delivery: await send(this.rpc, CallbackPatterns.getDelivery, { workspace_id: request.auth.workspace_id, delivery_id: deliveryId }),
    };
  }

  /** Sends the same callback again (same webhook-id), with a fresh attempt budget. */
  @Post(':delivery_id/redeliver')
  @HttpCode(202)
  async redeliver(@Param('delivery_id') deliveryId: string, @Req() request: AuthenticatedRequest): Promise<{ delivery: DeliverySummary }> {
    return {
      delivery: await send(this.rpc, CallbackPatterns.redeliver, { workspace_id: request.auth.workspace_id, delivery_id: deliveryId }),
    };
  }
}
