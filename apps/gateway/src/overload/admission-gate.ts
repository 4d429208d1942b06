import { trace } from '@opentelemetry/api';
import { toErrorBody, WaggleException } from '@waggle/errors';
import { Admission, contained, OVERLOAD_RETRY_AFTER_SECONDS, type ShedReason } from '@waggle/platform';
import { runInTraceContext, secondsSince, traceresponseOf, waggleMetrics } from '@waggle/telemetry';
import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { GatewayEnv } from '../config/gateway.env';
import { httpRequestLabels } from '../metrics/http-metrics';
import { isMcpRequest, mcpErrorText } from '../mcp/mcp-errors';
import { earlyOpenAiHeaders, isOpenAiRequest, OPENAI_BASE_PATH, openAiErrorText } from '../openai/openai-errors';

/** Served whatever the load, never counted: a probe must tell a loaded gateway from a dead one. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready']);

/** Set on an admitted request's response until its `close`, so the slot is given back exactly once. */
const ADMITTED = Symbol('waggle.admitted');
type AdmittedResponse = ServerResponse & { [ADMITTED]?: Admission };

/** Shared by every response (no closure per request); `close` also fires when the client left early, or a stream ended. */
const giveBackSlot = contained('giving back an admission slot', function (this: AdmittedResponse): void {
  const admission = this[ADMITTED];
  if (!admission) return;
  this[ADMITTED] = undefined;
  admission.leave();
});

function pathOf(url: string | undefined): string {
  if (!url) return '';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

const overloaded = (reason: ShedReason) =>
  new WaggleException('upstream_request_failed', { status: 503, detail: 'overloaded', details: { reason } });
/** The one overload refusal per reason, made once. */
const OVERLOADED: Readonly<Record<ShedReason, WaggleException>> = {
  in_flight: overloaded('in_flight'),
  event_loop_delay: overloaded('event_loop_delay'),
};

/**
 * The overload answers, made once per reason and surface, in English: they are given before
 * authentication tells the workspace's language. The OpenAI-compatible surface's is OpenAI's
 * error object (decisions), the MCP server's a JSON-RPC error, the native routes' the catalog's.
 */
const OVERLOAD_BODIES = Object.fromEntries(
  Object.entries(OVERLOADED).map(([reason, refusal]) => [
    reason,
    {
      native: JSON.stringify(toErrorBody(refusal, 'en')),
      openAi: openAiErrorText(refusal, { method: 'POST', url: OPENAI_BASE_PATH }),
      mcp: mcpErrorText(refusal),
    },
  ]),
) as Readonly<Record<ShedReason, { native: string; openAi: string; mcp: string }>>;

/**
 * Answers a refused request at once: 503 `upstream_request_failed` with `Retry-After` (in
 * OpenAI's error shape, with `x-request-id` and `x-should-retry`, under /openai/; a JSON-RPC
 * error at the MCP server's path), its
 * `traceparent` as every answer has one, counted in the request metrics (route `unknown`: it
 * was never routed). The body is not parsed but drained (`resume`), so a keep-alive
 * connection stays usable for the client's next request; a body that never ends is cut by
 * the server's request time-out, as for any request.
 */
function answerOverloaded(request: IncomingMessage, response: ServerResponse, reason: ShedReason, startedAt: number): void {
  request.resume();
  const openAi = isOpenAiRequest(request);
  const body = OVERLOAD_BODIES[reason][openAi ? 'openAi' : isMcpRequest(request) ? 'mcp' : 'native'];
  runInTraceContext(request, () => {
    response.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'retry-after': String(OVERLOAD_RETRY_AFTER_SECONDS),
      traceparent: traceresponseOf(trace.getActiveSpan()?.spanContext()),
      // What OpenAI's clients read besides the body: retryable, and a request id of its own (no run began).
      ...(openAi && earlyOpenAiHeaders(OVERLOADED[reason])),
    });
    response.end(body);
  });
  waggleMetrics().httpServerDuration.record(secondsSince(startedAt), httpRequestLabels(request, 503));
}

/**
 * The gateway's admission gate, ahead of Express and Nest on the HTTP server: every request
 * but the health probes counts as in flight from its arrival until its response's `close`
 * (a stream until it ends, a client gone early included). Past MAX_HTTP_IN_FLIGHT, or while
 * the event loop lags past MAX_EVENT_LOOP_DELAY_MS, a new request is answered at once
 * (answerOverloaded) instead of joining the work the process is already behind on, so the
 * latency of the requests it does take, and its memory, stay bounded. Probes pass straight to
 * the app, uncounted and never refused. Installed once the Nest app has its HTTP server (the
 * Express app is the server's request listener), before it listens.
 */
export function installAdmissionGate(server: Server, env: Pick<GatewayEnv, 'MAX_HTTP_IN_FLIGHT' | 'MAX_EVENT_LOOP_DELAY_MS'>): Admission {
  const admission = new Admission('http', { maxInFlight: env.MAX_HTTP_IN_FLIGHT, maxEventLoopDelayMs: env.MAX_EVENT_LOOP_DELAY_MS });
  const app = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!PROBE_PATHS.has(pathOf(request.url))) {
      const startedAt = performance.now();
      const refused = admission.enter();
      if (refused) return answerOverloaded(request, response, refused, startedAt);
      (response as AdmittedResponse)[ADMITTED] = admission;
      response.once('close', giveBackSlot);
    }
    for (const listener of app) listener.call(server, request, response);
  });
  server.once('close', () => admission.close());
  return admission;
}

/**
 * Connections the kernel holds for the gateway until it accepts them: Node's default is 511,
 * and a burst of new connections past it (clients reconnecting, a load balancer opening its
 * pool) has its SYNs dropped, which costs each one a 1 s retransmission, a kubelet's probe
 * included. Accepting is cheap, and an accepted request past the bounds is refused at once,
 * so a longer queue here means faster answers. The kernel caps it at net.core.somaxconn
 * (4096 by default since Linux 5.4).
 */
export const LISTEN_BACKLOG = 4_096;

/**
 * `app.listen` with LISTEN_BACKLOG: Nest passes its arguments on to `server.listen(port, host,
 * backlog, callback)`, though its declared overloads name no backlog.
 */
export function listenWithBacklog(app: INestApplication, port: number, host: string): Promise<unknown> {
  const listen = app.listen.bind(app) as unknown as (port: number, host: string, backlog: number) => Promise<unknown>;
  return listen(port, host, LISTEN_BACKLOG);
}
