import { apiGet, apiRequest } from './api-client';

/**
 * The callback delivery log (`/v1/private/deliveries`) as the console reads it: the Run detail
 * screen shows a run's deliveries, the Webhooks screen the whole log and its dead letters. The
 * shapes mirror the callback dispatcher's contract (libs/contracts callback-dispatcher.patterns.ts).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'gone', 'refused', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttempt {
  attempt: number;
  attempted_at: string;
  /** null when no HTTP answer arrived (refused, time-out, connection error). */
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface Delivery {
  delivery_id: string;
  request_id: string;
  event_type: string;
  url: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  created_at: string;
  next_attempt_at: string | null;
  completed_at: string | null;
}

export interface DeliveriesFilter {
  request_id?: string;
  status?: DeliveryStatus;
  /** The next page: the deliveries older than this one (the last delivery_id of the page before). */
  before?: string;
  limit?: number;
}

export function deliveriesPath(filter: DeliveriesFilter): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) if (value !== undefined) query.set(name, String(value));
  const text = query.toString();
  return `/v1/private/deliveries${text === '' ? '' : `?${text}`}`;
}

export function listDeliveries(key: string, filter: DeliveriesFilter, signal?: AbortSignal): Promise<Delivery[]> {
  return apiGet<{ deliveries: Delivery[] }>(key, deliveriesPath(filter), signal).then((answer) => answer.deliveries);
}

/** Sends the same callback again (same webhook-id) with a fresh attempt budget; answers the delivery as it now is. */
export function redeliver(key: string, deliveryId: string): Promise<Delivery> {
  return apiRequest<{ delivery: Delivery }>(key, 'POST', `/v1/private/deliveries/${encodeURIComponent(deliveryId)}/redeliver`).then(
    (answer) => answer.delivery,
  );
}
