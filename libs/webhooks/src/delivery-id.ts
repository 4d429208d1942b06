/** `webhook-id` of a request's callback: one result, one delivery, whoever enqueues it and however often. */
export function deliveryIdFor(requestId: string): string {
  return `msg_${requestId.replace(/^req_/, '')}`;
}
