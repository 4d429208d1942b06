/**
 * The processes behind the gateway. Each answers NATS requests in a queue group named
 * after itself, so replicas share the load. Names are wire format.
 */
export const DOMAIN_SERVICES = ['invocation', 'agent', 'knowledge-base', 'asset', 'catalog', 'callback-dispatcher'] as const;
export type DomainService = (typeof DOMAIN_SERVICES)[number];

export const APP_NAMES = ['gateway', ...DOMAIN_SERVICES] as const;
export type AppName = (typeof APP_NAMES)[number];

/** NATS queue group of a service: its own name. */
export function queueGroupOf(service: DomainService): string {
  return service;
}
