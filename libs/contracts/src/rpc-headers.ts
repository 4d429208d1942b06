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
} as const;

/** What a service knows about the caller of the message it is handling. */
export interface RpcCallContext {
  requestId?: string;
  workspaceId?: string;
}
