import { DOMAIN_SERVICES, type DomainService } from './services';

export type HealthPingPattern<S extends DomainService = DomainService> = `${S}.health.ping`;

/** `<service>.health.ping`: answered by every service; the gateway's readiness asks each one. */
export const HealthPatterns = Object.fromEntries(
  DOMAIN_SERVICES.map((service) => [service, `${service}.health.ping`]),
) as { readonly [S in DomainService]: HealthPingPattern<S> };

export type HealthPingRequest = Record<string, never>;

export interface HealthPingResponse {
  service: DomainService;
  /** Seconds since the process started. */
  uptime_s: number;
  /** False while the service is shutting down or a dependency is down. */
  ready: boolean;
}
