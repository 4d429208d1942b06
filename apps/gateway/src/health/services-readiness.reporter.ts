import { Inject, Injectable } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { DOMAIN_SERVICES, HealthPatterns, send, type DomainService } from '@waggle/contracts';
import { NatsRpcClient, type ReadinessReporter } from '@waggle/platform';

export const SERVICE_PING_TIMEOUT_MS = 1_000;

type ServiceStatus = { status: 'up'; uptime_s: number } | { status: 'down'; message: string };

/** The `services` section of the gateway's `/health/ready`: each domain service, by name. */
@Injectable()
export class ServicesReadinessReporter implements ReadinessReporter {
  readonly section = 'services';

  constructor(@Inject(NatsRpcClient) private readonly rpc: NatsRpcClient) {}

  async report(): Promise<Record<DomainService, ServiceStatus>> {
    // A kubelet probe is not traced; its six pings should not start six traces either.
    const active = context.active();
    const pingContext = trace.getSpan(active) ? active : suppressTracing(active);
    const entries = await context.with(pingContext, () =>
      Promise.all(DOMAIN_SERVICES.map(async (service) => [service, await this.ping(service)] as const)),
    );
    return Object.fromEntries(entries) as Record<DomainService, ServiceStatus>;
  }

  private async ping(service: DomainService): Promise<ServiceStatus> {
    try {
      const answer = await send(this.rpc, HealthPatterns[service], {}, { timeoutMs: SERVICE_PING_TIMEOUT_MS });
      return answer.ready ? { status: 'up', uptime_s: answer.uptime_s } : { status: 'down', message: 'not ready' };
    } catch (error) {
      return { status: 'down', message: error instanceof Error ? error.message : 'no answer' };
    }
  }
}
