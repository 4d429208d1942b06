/**
 * NATS headers every request carries from the gateway to a service. The gateway has
 * authenticated the caller; services trust these and never re-authenticate.
 * Header names are wire format.
 */
export const RpcHeaders = {
  requestId: 'x-request-id',
  workspaceId: 'x-workspace-id',
  /** W3C trace context, injected by the OpenTelemetry propagator. */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  /**
   * A message too large for NATS's max_payload travels as a claim check: its bytes are an
   * object of CLAIM_BUCKETS, named by this header, and the message itself is empty.
   */
  claim: 'waggle-claim',
} as const;

/**
 * JetStream object store buckets of claim-checked messages (wire format). Request, reply and
 * stream payloads are read once and deleted by their receiver, and expire after an hour
 * whatever happens; ledger batches wait for the ledger's owner, however long it is down,
 * within a week.
 */
export const CLAIM_BUCKETS = {
  rpc: { name: 'waggle-claims', ttlMs: 60 * 60 * 1000 },
  ledger: { name: 'waggle-ledger-claims', ttlMs: 7 * 24 * 60 * 60 * 1000 },
} as const;
export type ClaimBucket = keyof typeof CLAIM_BUCKETS;

/** What a service knows about the caller of the message it is handling. */
export interface RpcCallContext {
  requestId?: string;
  workspaceId?: string;
}
