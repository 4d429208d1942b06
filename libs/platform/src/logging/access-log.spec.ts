import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp, type Options } from 'pino-http';
import type { DestinationStream } from 'pino';
import { requestContext } from '../context/request-context';
import { createAccessLog } from './access-log';
import { loggerModuleParams } from './logger-options';

/** A destination keeping each line, parsed, with the two fields that differ from run to run reduced to their types. */
function lines(): DestinationStream & { parsed: Array<Record<string, unknown>> } {
  const parsed: Array<Record<string, unknown>> = [];
  return {
    parsed,
    write(line: string) {
      const whole = JSON.parse(line) as Record<string, unknown>;
      const { time: _time, responseTime, ...rest } = whole;
      const err = rest.err as { stack?: string } | undefined;
      if (err) err.stack = typeof err.stack === 'string' ? 'a stack' : err.stack;
      // The keys' order too: the line reads as it did.
      parsed.push({ ...rest, responseTime: typeof responseTime, keys: Object.keys(whole) });
    },
  };
}

function exchange(url: string, status: number) {
  const request = Object.assign(new EventEmitter(), {
    method: 'POST',
    url,
    headers: { authorization: 'Bearer x' },
  }) as unknown as IncomingMessage;
  const response = Object.assign(new EventEmitter(), {
    statusCode: status,
    headersSent: true,
    writableEnded: true,
    getHeaders: () => ({}),
  }) as unknown as ServerResponse;
  return { request, response };
}

describe("the gateway's own access log", () => {
  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => context.disable());

  const span = trace.wrapSpanContext({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.NONE,
  });

  /** One request through a middleware, inside the request context and trace context the gateway's first middleware sets. */
  function through(
    middleware: (request: IncomingMessage, response: ServerResponse, next: () => void) => void,
    url: string,
    status: number,
  ) {
    const { request, response } = exchange(url, status);
    const store: { requestId: string; workspaceId?: string } = { requestId: 'req_0192aa' };
    requestContext.run(store, () =>
      context.with(trace.setSpan(ROOT_CONTEXT, span), () =>
        middleware(request, response, () => {
          // The key check sets the workspace later in the request.
          store.workspaceId = '7f1d2f3e-0000-4000-8000-000000000000';
          response.emit('finish');
          response.emit('close');
        }),
      ),
    );
  }

  it.each([
    ['a success', '/v1/prompt/invoke', 200],
    ['a refusal', '/v1/prompt/invoke', 422],
    ['a server error', '/v1/prompt/invoke', 502],
    ['a webhook with its secret in the query', '/v1/prompt/webhooks/a/variants/b?secret=s3cret&x=1', 202],
  ])('writes %s as pino-http did', (_name, url, status) => {
    const ours = lines();
    const theirs = lines();
    through(createAccessLog('gateway', 'info', ours), url, status);
    const { pinoHttp: options } = loggerModuleParams('gateway', 'info') as { pinoHttp: Options };
    const reference = pinoHttp(options, theirs);
    through((request, response, next) => reference(request, response, next), url, status);
    expect(ours.parsed).toHaveLength(1);
    expect(ours.parsed).toEqual(theirs.parsed);
  });

  it('writes nothing for health probes, nor anything below info (pino-http wrote its 5xx lines at info too)', () => {
    const probe = lines();
    through(createAccessLog('gateway', 'info', probe), '/health/ready', 200);
    expect(probe.parsed).toEqual([]);
    const quiet = lines();
    const accessLog = createAccessLog('gateway', 'warn', quiet);
    through(accessLog, '/v1/invoke', 200);
    through(accessLog, '/v1/invoke', 503);
    expect(quiet.parsed).toEqual([]);
  });
});
