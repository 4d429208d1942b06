import { Controller, type Type } from '@nestjs/common';
import { HealthPatterns, type DomainService, type HealthPingResponse } from '@waggle/contracts';
import { RpcHandler } from '../nats/rpc-handler';
import { ReadinessService } from './readiness.service';

/** Answers `<service>.health.ping` over NATS, which the gateway's readiness asks. */
export function createHealthPingController(service: DomainService): Type<unknown> {
  @Controller()
  class HealthPingController {
    constructor(private readonly readiness: ReadinessService) {}

    @RpcHandler(HealthPatterns[service])
    async ping(): Promise<HealthPingResponse> {
      const { ready } = await this.readiness.evaluate();
      return { service, uptime_s: Math.round(process.uptime()), ready };
    }
  }
  return HealthPingController;
}
