import { EmptyRequest, patternNames, rpc, type RpcContract } from './rpc-contract';
import { DOMAIN_SERVICES, type DomainService } from './services';

export type HealthPingPattern<S extends DomainService = DomainService> = `${S}.health.ping`;

export type HealthPingRequest = EmptyRequest;

export interface HealthPingResponse {
  service: DomainService;
  /** Seconds since the process started. */
  uptime_s: number;
  /** False while the service is shutting down or a dependency is down. */
  ready: boolean;
}

/** `<service>.health.ping`: answered by every service; the gateway's readiness asks each one. */
export const HealthContracts = Object.fromEntries(
  DOMAIN_SERVICES.map((service) => [service, rpc(`${service}.health.ping`, EmptyRequest).returns<HealthPingResponse>()]),
) as { readonly [S in DomainService]: RpcContract<HealthPingPattern<S>, EmptyRequest, HealthPingResponse, 'reply'> };

export const HealthPatterns = patternNames(HealthContracts);
