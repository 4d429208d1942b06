import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CallbackPatterns, DeliveryIdRequest, ListDeliveriesRequest, type DeliverySummary } from '@waggle/contracts';
import { DeliveriesService } from './deliveries.service';

@Controller()
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @MessagePattern(CallbackPatterns.listDeliveries)
  list(@Payload() request: ListDeliveriesRequest): Promise<DeliverySummary[]> {
    return this.deliveries.list(request);
  }

  @MessagePattern(CallbackPatterns.getDelivery)
  get(@Payload() request: DeliveryIdRequest): Promise<DeliverySummary> {
    return this.deliveries.get(request);
  }

  @MessagePattern(CallbackPatterns.redeliver)
  redeliver(@Payload() request: DeliveryIdRequest): Promise<DeliverySummary> {
    return this.deliveries.redeliver(request);
  }
}
