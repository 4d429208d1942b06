import { createServer, type Server } from 'node:http';

/** An OTLP/JSON attribute value, as the exporter encodes it. */
interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  /** The span's attributes, decoded: strings, numbers, booleans and arrays of them. */
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  links: Array<{ traceId: string; spanId: string }>;
}

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  links?: Array<{ traceId: string; spanId: string }>;
}

interface OtlpJsonExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

function decode(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decode);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

function decodeAll(attributes: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((attribute) => [attribute.key, decode(attribute.value)]));
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

  /** The spans of one trace, in start order. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans
      .filter((span) => span.traceId === traceId)
      .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
  }

  private collect(body: string): void {
    this.exports.push(body);
    const payload = JSON.parse(body) as OtlpJsonExport;
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = String(decodeAll(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            kind: span.kind,
            attributes: decodeAll(span.attributes),
            status: span.status ?? {},
            startTimeUnixNano: String(span.startTimeUnixNano),
            endTimeUnixNano: String(span.endTimeUnixNano),
            links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
          });
        }
      }
    }
  }
}
