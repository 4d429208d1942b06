/**
 * NATS headers every request carries from the gateway to a service. The gateway has
 * authenticated the caller; services trust these and never re-authenticate.
 * Header names are wire format.
 */
export const RpcHeaders = {
  requestId: 'x-request-id',
  workspaceId: 'x-workspace-id',
  /** The id of the API key the caller authenticated with (usage governance: spend and budgets per key). */
  apiKeyId: 'x-api-key-id',
  /**
   * `1` when the gateway's admission found the workspace's hosted credits used up (balance ≤ 0 on
   * a plan with hosted credits): a run that would call a model on the operator's keys answers 402
   * `insufficient_hosted_llm_credits`; one on the workspace's own keys runs.
   */
  creditsExhausted: 'waggle-credits-exhausted',
  /** W3C trace context, injected by the OpenTelemetry propagator. */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  /**
   * A message too large for NATS's max_payload travels as a claim check: its bytes are an
   * object of CLAIM_BUCKETS, named by this header, and the message itself is empty.
   */
  claim: 'waggle-claim',
  /**
   * On a stream request: the interval (ms) at which the caller wants to hear that the stream
   * is alive. On a reply: an empty heartbeat, sent while the stream is open (see STREAM_HEARTBEAT).
   */
  heartbeat: 'waggle-heartbeat',
  /**
   * On a reply request: when the caller stops waiting (epoch ms). A handler that may outlast it
   * answers before it (DEADLINE_MARGIN_MS earlier), so the caller hears the service's answer.
   */
  deadline: 'waggle-deadline',
} as const;

/** How long before the caller's deadline a service answers, for the answer to travel back in time. */
export const DEADLINE_MARGIN_MS = 1_000;

/**
 * A streamed reply's liveness: the responder sends a heartbeat every `intervalMs` while the
 * stream is open, and the caller ends the stream as timed out (504) after `missedLimit`
 * intervals without a packet or heartbeat. A replica that dies mid-stream, or after taking the
 * request, is noticed in seconds instead of holding the caller until the stream's maximum
 * duration; a model that is slow to its first token is not, since heartbeats do not wait on it.
 */
export const STREAM_HEARTBEAT = { intervalMs: 5_000, missedLimit: 3 } as const;

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
  apiKeyId?: string;
  creditsExhausted?: boolean;
}
