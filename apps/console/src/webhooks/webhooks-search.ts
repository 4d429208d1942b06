import { DELIVERY_STATUSES, type DeliveryStatus } from '../api/deliveries';

/**
 * The Webhooks screen's tab and the delivery log's filters, kept in the URL (a filtered view is a
 * link) and read back leniently: an unknown value is dropped, never an error page.
 */
export const WEBHOOK_TABS = ['deliveries', 'dead-letters', 'secrets'] as const;
export type WebhookTab = (typeof WEBHOOK_TABS)[number];

export interface WebhooksSearch {
  /** Absent: the delivery log. */
  tab?: WebhookTab;
  status?: DeliveryStatus;
  request_id?: string;
}

/** A page of the delivery log as the console asks for it. */
export const DELIVERIES_PAGE_SIZE = 25;

const REQUEST_ID = /^req_[0-9a-f]{32}$/;

export function parseWebhooksSearch(search: Record<string, unknown>): WebhooksSearch {
  const parsed: WebhooksSearch = {};
  if ((WEBHOOK_TABS as readonly unknown[]).includes(search.tab)) parsed.tab = search.tab as WebhookTab;
  if ((DELIVERY_STATUSES as readonly unknown[]).includes(search.status)) parsed.status = search.status as DeliveryStatus;
  const requestId = typeof search.request_id === 'string' ? search.request_id.trim().toLowerCase() : '';
  if (REQUEST_ID.test(requestId)) parsed.request_id = requestId;
  return parsed;
}

/** The delivery log's filter for a tab: the dead letters are the deliveries whose every attempt failed. */
export function deliveriesFilter(search: WebhooksSearch): { status?: DeliveryStatus; request_id?: string } {
  if (search.tab === 'dead-letters') return { status: 'dead_lettered', ...(search.request_id && { request_id: search.request_id }) };
  return { ...(search.status && { status: search.status }), ...(search.request_id && { request_id: search.request_id }) };
}
