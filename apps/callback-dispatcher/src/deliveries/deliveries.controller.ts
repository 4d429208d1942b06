import { Controller } from '@nestjs/common';
import { CallbackPatterns, DeliveryIdRequest, ListDeliveriesRequest, type DeliverySummary } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { DeliveriesService } from './deliveries.service';

@Controller()
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @RpcHandler(CallbackPatterns.listDeliveries)
  list(request: ListDeliveriesRequest): Promise<DeliverySummary[]> {
    return this.deliveries.list(request);
  }

  @RpcHandler(CallbackPatterns.getDelivery)
  get(request: DeliveryIdRequest): Promise<DeliverySummary> {
    return this.deliveries.get(request);
  }

  @RpcHandler(CallbackPatterns.redeliver)
  redeliver(request: DeliveryIdRequest): Promise<DeliverySummary> {
    return this.deliveries.redeliver(request);
  }
}
