import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { requestContext } from '../context/request-context';
import { contextFields, isWellFormedURIComponent, pinoOptions, redactCredentials, redactUrl } from './logger-options';

describe('redactUrl', () => {
  it('hides credential-bearing query parameters and keeps the rest', () => {
    expect(redactUrl('/v1/prompt/webhooks/a/variants/b?secret=whsec_abc&x=1')).toBe(
      '/v1/prompt/webhooks/a/variants/b?secret=[redacted]&x=1',
    );
    expect(redactUrl('/x?SECRET=1')).toBe('/x?SECRET=[redacted]');
    expect(redactUrl('/v1/error_codes?locale=es')).toBe('/v1/error_codes?locale=es');
    expect(redactUrl('/health/live')).toBe('/health/live');
  });

  it('never throws on what a client may send, and still finds an encoded secret', () => {
    // The request that stopped the gateway: a malformed escape in a query name (URIError).
    expect(redactUrl('/v1/error_codes?%E0%A4%A=1')).toBe('/v1/error_codes?%E0%A4%A=1');
    for (const url of ['/x?%', '/x?%zz=1&%=2', '/x?a=%E0%A4%A', '/x?%ED%A0%80=1', '/x?&&=&', '/x??secret=1', '/x?%00=1'])
      expect(() => redactUrl(url)).not.toThrow();
    expect(redactUrl('/x?%73ecret=1&%E0%A4%A=2')).toBe('/x?%73ecret=[redacted]&%E0%A4%A=2');
    expect(redactUrl('/x?api+key=1&api_key=2')).toBe('/x?api+key=1&api_key=[redacted]');
  });
});

describe('isWellFormedURIComponent', () => {
  it('tells a percent-encoding that decodes from one that does not, without throwing', () => {
    for (const text of ['', 'locale=es', 'q=%C3%A9&x=%2F', 'a=%25']) expect(isWellFormedURIComponent(text)).toBe(true);
    for (const text of ['%E0%A4%A=1', '%', 'q=100%', '%zz', '%ED%A0%80', '%C0%AF']) expect(isWellFormedURIComponent(text)).toBe(false);
  });
});

describe('contextFields', () => {
  it('adds the request id and workspace of the current request, and nothing outside one', () => {
    expect(contextFields()).toEqual({});
    const fields = requestContext.run({ requestId: 'req_0123', workspaceId: 'ws-1' }, () => contextFields());
    expect(fields).toEqual({ request_id: 'req_0123', workspace_id: 'ws-1' });
  });

  it('adds the trace and span ids of the active span', () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    const fields = context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => contextFields());
    expect(fields).toEqual({ trace_id: spanContext.traceId, span_id: spanContext.spanId });
  });
});

describe('credentials in logged errors', () => {
  it('masks user:password in URLs', () => {
    expect(redactCredentials('connect postgres://admin:hunter2@db:5432/x failed')).toBe('connect postgres://[redacted]@db:5432/x failed');
    expect(redactCredentials('redis://:pw@cache/0 and nats://n:4222')).toBe('redis://[redacted]@cache/0 and nats://n:4222');
  });

  it('applies to the message and stack of every logged error', () => {
    const serialize = pinoOptions('test', 'info').serializers?.err as (error: Error) => { message: string; stack: string };
    const line = serialize(new Error('connection to postgres://admin:hunter2@db failed'));
    expect(line.message).toBe('connection to postgres://[redacted]@db failed');
    expect(line.stack).not.toContain('hunter2');
  });
});
