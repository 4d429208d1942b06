import { createServer, type Server } from 'node:http';

export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
}

interface OtlpJsonExport {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans?: Array<{ spans?: Array<{ name: string; traceId: string; spanId: string; parentSpanId?: string; kind: number }> }>;
  }>;
}

/**
 * A loopback OTLP/HTTP receiver (the JSON encoding the project's exporter sends), so a
 * test can see the spans that separate processes export.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every export request's body as received, to search for what must never be exported. */
  readonly exports: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.url === '/v1/traces') this.collect(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('receiver has no port');
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private collect(body: string): void {
    this.exports.push(body);
    const payload = JSON.parse(body) as OtlpJsonExport;
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            kind: span.kind,
          });
        }
      }
    }
  }
}
