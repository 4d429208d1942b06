import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { DeepJson, errorOf, expectAnswerShape, expectCatalogShape, onMcpSurface, onOpenAiSurface, toJsonText } from './support/inputs';
import { rawExchange, type RawAnswer, type RawExchange } from './support/raw-http';
import { ROUTES, takesBody, type RouteCase } from './support/routes';
import { generatedRunSettings } from './support/seeds';
import { useGeneratedStack } from './support/stack';

/**
 * The raw-HTTP tier: every route of the gateway (ROUTES, the upload route and the console's files too) sent what only a
 * hand-written client or an attacker sends, over a plain socket: malformed, overlong and double
 * percent-encoding in paths and queries, prototype names and long or non-ASCII ids as path
 * parameters, repeated, conflicting, overlong and non-Latin-1 headers, every Content-Encoding
 * with bodies that are and are not compressed, odd content types and charsets, broken multipart
 * bodies, odd and lowercase methods, HTTP/1.0, pipelined requests, and clients that stop mid-body.
 *
 * Whatever comes in: no 5xx; every error in the catalog's shape (or Node's HTTP parser's own
 * 4xx, which the gateway also answers in that shape), under /openai/ (the OpenAI-compatible
 * surface) every answer with an `x-request-id` and every error in OpenAI's shape, and at /v1/mcp
 * (the MCP server) every error a JSON-RPC error, but for the parser's 400 to bytes it could not
 * read as a request; no reset and no close without an answer
 * unless the protocol leaves no other (a declared body never sent); no app restarted; and
 * `/health/live` answering throughout, probed as a kubelet does (1 s time-out; never three
 * failures in a row).
 *
 * RAW_HTTP_RUNS sets the generated cases (default 6,000, each one or more requests); the seed is
 * fixed for CI and printed (GENERATED_INPUT_SEED replays another, `npm run test:explore` draws
 * fresh ones). Every failure a run finds is added to the regression cases at the end.
 */

const RAW_RUNS = Number(process.env.RAW_HTTP_RUNS ?? 6_000);
/** How long one exchange may take before the test gives up on it (a hang is a failure, not a wait). */
const EXCHANGE_BOUND_MS = 20_000;
/** Cases in flight at once, each on its own connection. */
const CONCURRENCY = 4;
/** How long a client that declared more body than it sends waits before leaving. */
const STALL_MS = 300;

/** The route table's routes, plus the multipart upload the generated tier drives on its own. */
const UPLOAD: RouteCase = {
  method: 'POST',
  path: '/v1/public/workspaces/{0}/assets',
  credentials: 'key',
  validParams: ({ a }) => [[a.id]],
};
/**
 * The web console's static files (docs/guide/console.md): not API routes, so outside ROUTES and
 * the OpenAPI document, but the same gateway: odd paths, `..` and bad encodings under /console
 * answer an app page, a file or the catalog's 404, never a 5xx or a file outside the build.
 */
const CONSOLE_FILES: RouteCase[] = [
  { method: 'GET', path: '/console/{0}', credentials: 'none', validParams: () => [['runs']] },
  { method: 'GET', path: '/console/assets/{0}', credentials: 'none', validParams: () => [['gone.js']] },
  // The operator's console settings (CONSOLE_TRACE_URL_TEMPLATE), served without a key.
  { method: 'GET', path: '/console/config.json', credentials: 'none', query: true },
];
const RAW_ROUTES = [...ROUTES, UPLOAD, ...CONSOLE_FILES];

type Bytes = string | Buffer;
const bytes = (value: Bytes): Buffer => (typeof value === 'string' ? Buffer.from(value, 'latin1') : value);

interface RawRequest {
  method: string;
  target: Bytes;
  version: string;
  headers: Array<[Bytes, Bytes]>;
  body: Buffer;
}

function serialize(request: RawRequest): Buffer {
  const lines: Buffer[] = [bytes(`${request.method} `), bytes(request.target), bytes(` ${request.version}\r\n`)];
  for (const [name, value] of request.headers) lines.push(bytes(name), bytes(': '), bytes(value), bytes('\r\n'));
  lines.push(bytes('\r\n'), request.body);
  return Buffer.concat(lines);
}

/** Path parameters as raw bytes in the request target: what percent-encoding a client got wrong, or never did. */
const RAW_PARAMS: Bytes[] = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '%',
  '%E0%A4%A',
  '%zz',
  '%ED%A0%80',
  '%C0%AF',
  '%C0%AE%C0%AE',
  '%252F',
  '%2F',
  '%00',
  'a%00b',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  'a;b=c',
  'x'.repeat(6_000),
  'é'.repeat(300),
  Buffer.from('ключ'),
  Buffer.from([0xe9, 0x41]),
  Buffer.from('🙂'),
  '%F0%9F%99%82',
  '%u00e9',
  '+',
  "'--",
];

const RAW_QUERIES: Bytes[] = [
  '',
  '?%E0%A4%A=1',
  '?a=%E0%A4%A',
  '?%=%',
  '?secret=%E0%A4%A&secret=1',
  '?limit=1&limit=2',
  '?limit[]=1&limit[]=2',
  '?limit[a]=1',
  '?locale[__proto__]=x',
  '?__proto__=1&constructor=2&toString=3',
  '?%00=%00',
  '?after=%E0&user=%FF',
  `?${'a=1&'.repeat(1_500)}`,
  `?q=${'x'.repeat(7_000)}`,
  '?a=%2525&b=%25',
  Buffer.from('?user=ключ&locale=é'),
  '?&&&=&=',
  '?locale=es&locale=en',
  '??',
  '?%2e%2e=%2f',
];

const BODY_ENCODINGS = [
  'none',
  'gzip',
  'gzip-plain',
  'deflate',
  'deflate-plain',
  'br',
  'br-plain',
  'identity',
  'compress',
  'gzip, br',
  'GZIP',
  'x-unknown',
] as const;
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset="UTF-8"; foo=bar',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;;;charset',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/json; boundary=x',
  'text/plain',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary="unterminated',
  '',
] as const;
const METHODS = [
  'route',
  'route',
  'route',
  'route',
  'lowercase',
  'TRACE',
  'PROPFIND',
  'OPTIONS',
  'HEAD',
  'PURGE',
  'FOO',
  'M-SEARCH',
  'CONNECT',
] as const;
const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/1.1-no-host', 'HTTP/2.0', 'HTTP/0.9'] as const;
const FRAMINGS = [
  'length',
  'length',
  'length',
  'chunked',
  'length-and-chunked',
  'length-short',
  'two-lengths',
  'bad-chunk',
  'length-negative',
] as const;
const CREDENTIALS = ['a', 'a', 'a', 'none', 'two-authorizations', 'non-latin1', 'long', 'b'] as const;
const EXTRA_HEADERS: Array<Array<[Bytes, Bytes]>> = [
  [],
  [],
  [['Expect', '100-continue']],
  [['Expect', 'the-impossible']],
  [
    ['Connection', 'Upgrade'],
    ['Upgrade', 'websocket'],
    ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
    ['Sec-WebSocket-Version', '13'],
  ],
  [
    ['Connection', 'Upgrade, HTTP2-Settings'],
    ['Upgrade', 'h2c'],
    ['HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA'],
  ],
  [['X-Long', 'x'.repeat(20_000)]],
  [[Buffer.from('Ключ'), 'x']],
  [['Accept-Language', Buffer.from('español, 日本語;q=0.5')]],
  [['Idempotency-Key', Buffer.from('ключ-🙂')]],
  [
    ['Idempotency-Key', 'a'],
    ['Idempotency-Key', 'b'],
  ],
  [['Last-Event-ID', '%E0%A4%A']],
  [['Last-Event-ID', '-1']],
  [['traceparent', '00-zzzz-zzzz-01']],
  [['traceparent', `00-${'0'.repeat(32)}-${'0'.repeat(16)}-ff`]],
  [['traceparent', 'x'.repeat(5_000)]],
  [['Cookie', 'a=%E0%A4%A; b; =c; __proto__=1']],
  [['X-Forwarded-For', 'not-an-ip, 999.1.1.1']],
  [
    ['Content-Type', 'application/json'],
    ['Content-Type', 'text/plain'],
  ],
  [
    ['Host', '127.0.0.1'],
    ['Host', 'example.invalid'],
  ],
  [['Transfer-Encoding', 'gzip, chunked']],
  [['Accept', 'text/event-stream']],
  [[' X-Space', 'x']],
  [['X-Tab\t', 'x']],
];
/** A JSON value whose own `toString`/`valueOf` are not functions: anything that stringifies it naively throws. */
const HOSTILE_VALUES: unknown[] = [
  { toString: null },
  { valueOf: null, toString: null },
  { toString: 'x', valueOf: 1 },
  JSON.parse('{"constructor":null,"__proto__":{"toString":null}}'),
];

/**
 * An answer as the gateway must give it to a request for `path` (see expectAnswerShape: under
 * /openai/ OpenAI's error object and an `x-request-id`, at /v1/mcp a JSON-RPC error), but for
 * Node's parser's 400 to bytes it could not read as a request: no path was read, so it is in the
 * catalog's shape whatever the target, and carries no request id.
 */
function expectRawAnswer(path: string, answer: RawAnswer, what: string): void {
  const text = answer.body.toString();
  if (answer.status === 400 && answer.headers['x-request-id'] === undefined && (onOpenAiSurface(path) || onMcpSurface(path))) {
    expectCatalogShape(answer.status, text, what);
    expect({ what, code: errorOf('', text).code }).toEqual({ what, code: 'invalid_request' });
    return;
  }
  expectAnswerShape(path, answer.status, text, (name) => answer.headers[name], what);
}

interface RawCase {
  route: RouteCase;
  param: Bytes | undefined;
  query: Bytes;
  method: (typeof METHODS)[number];
  version: (typeof VERSIONS)[number];
  credential: (typeof CREDENTIALS)[number];
  extra: Array<[Bytes, Bytes]>;
  bodyKind: 'valid' | 'hostile' | 'empty' | 'not-json' | 'multipart' | 'multipart-broken';
  hostileField: number;
  encoding: (typeof BODY_ENCODINGS)[number];
  contentType: (typeof CONTENT_TYPES)[number] | 'route';
  framing: (typeof FRAMINGS)[number];
  pipelined: number;
}

const rawCase: fc.Arbitrary<RawCase> = fc.record({
  route: fc.constantFrom(...RAW_ROUTES),
  param: fc.option(fc.constantFrom(...RAW_PARAMS), { nil: undefined, freq: 3 }),
  query: fc.constantFrom(...RAW_QUERIES),
  method: fc.constantFrom(...METHODS),
  version: fc.constantFrom(...VERSIONS),
  credential: fc.constantFrom(...CREDENTIALS),
  extra: fc.constantFrom(...EXTRA_HEADERS),
  bodyKind: fc.constantFrom('valid', 'valid', 'hostile', 'hostile', 'empty', 'not-json', 'multipart', 'multipart-broken'),
  hostileField: fc.nat({ max: 20 }),
  encoding: fc.constantFrom(...BODY_ENCODINGS),
  contentType: fc.oneof(
    { weight: 3, arbitrary: fc.constant('route' as const) },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  ),
  framing: fc.constantFrom(...FRAMINGS),
  pipelined: fc.constantFrom(1, 1, 1, 1, 2, 3),
});

describe('raw HTTP against every route', () => {
  // The gateway's access log on: its line, written after each answer, reads the URL as sent.
  const stack = useGeneratedStack('raw HTTP', { gatewayLogLevel: 'info' });
  const settings = generatedRunSettings('raw HTTP');
  let port: number;
  /** Liveness as a kubelet probes it while the tier runs. */
  const probe = {
    sent: 0,
    failed: 0,
    inARow: 0,
    worstInARow: 0,
    slowestMs: 0,
    reasons: new Set<string>(),
    timer: undefined as NodeJS.Timeout | undefined,
  };

  beforeAll(() => {
    port = Number(new URL(stack.gateway).port);
    probe.timer = setInterval(() => void probeLive(), 500);
  });

  function stopProbing(): void {
    clearInterval(probe.timer);
    probe.timer = undefined;
  }

  afterAll(() => {
    stopProbing();
    process.stdout.write(
      `raw HTTP: /health/live probed ${probe.sent} times, ${probe.failed} failed or past 1 s, at most ${probe.worstInARow} in a row, slowest ${Math.round(probe.slowestMs)} ms${probe.reasons.size ? ` (${[...probe.reasons].join('; ')})` : ''}\n`,
    );
  });

  async function probeLive(): Promise<void> {
    probe.sent += 1;
    const started = performance.now();
    try {
      const response = await fetch(`${stack.gateway}/health/live`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      probe.inARow = 0;
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
      probe.reasons.add(error instanceof Error ? `${error.name}: ${error.message}${cause}` : String(error));
      probe.failed += 1;
      probe.inARow += 1;
      probe.worstInARow = Math.max(probe.worstInARow, probe.inARow);
    }
    probe.slowestMs = Math.max(probe.slowestMs, performance.now() - started);
  }

  function credentialHeaders(route: RouteCase, credential: RawCase['credential']): Array<[Bytes, Bytes]> {
    const header = route.credentials === 'webhook' || route.credentials === 'agent-webhook' ? 'X-Service-Webhook-Secret' : 'Authorization';
    const valid = (who: 'a' | 'b') => Object.values(stack.credentialHeaders(route, who))[0];
    switch (credential) {
      case 'a':
      case 'b':
        return route.credentials === 'none' ? [] : [[header, valid(credential)]];
      case 'none':
        return [];
      case 'two-authorizations':
        return [
          [header, valid('a')],
          [header, valid('b')],
        ];
      case 'non-latin1':
        return [[header, Buffer.from('Bearer ключ-🙂')]];
      case 'long':
        return [[header, `Bearer ${'k'.repeat(9_000)}`]];
    }
  }

  function bodyOf(item: RawCase): { body: Buffer; contentType: string } {
    const valid = item.route.validBody?.(stack.context) as Record<string, unknown> | undefined;
    const upload = item.route === UPLOAD;
    if (item.bodyKind === 'multipart' || (upload && item.bodyKind === 'valid')) {
      const boundary = 'raw-boundary';
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="raw.txt"\r\nContent-Type: text/plain\r\n\r\nraw tier\r\n--${boundary}--\r\n`;
      return { body: Buffer.from(body), contentType: `multipart/form-data; boundary=${boundary}` };
    }
    if (item.bodyKind === 'multipart-broken')
      return {
        body: Buffer.from('--a\r\nContent-Disposition: form-data; name="file"\r\n\r\nno end'),
        contentType: 'multipart/form-data; boundary=b',
      };
    if (item.bodyKind === 'empty') return { body: Buffer.alloc(0), contentType: 'application/json' };
    if (item.bodyKind === 'not-json') return { body: Buffer.from('{"a":'), contentType: 'application/json' };
    const base = valid ?? {};
    if (item.bodyKind === 'hostile') {
      const fields = [...Object.keys(base), 'unexpected'];
      const field = fields[item.hostileField % fields.length];
      const hostile = HOSTILE_VALUES[item.hostileField % HOSTILE_VALUES.length];
      const current = base[field];
      const value =
        typeof current === 'object' && current !== null && !Array.isArray(current)
          ? { ...(current as object), [Object.keys(current)[0] ?? 'nested']: hostile }
          : hostile;
      return { body: Buffer.from(toJsonText({ ...base, [field]: value })), contentType: 'application/json' };
    }
    return { body: Buffer.from(toJsonText(base)), contentType: 'application/json' };
  }

  function encode(body: Buffer, encoding: RawCase['encoding']): { body: Buffer; header?: string } {
    switch (encoding) {
      case 'none':
        return { body };
      case 'gzip':
        return { body: gzipSync(body), header: 'gzip' };
      case 'deflate':
        return { body: deflateSync(body), header: 'deflate' };
      case 'br':
        return { body: brotliCompressSync(body), header: 'br' };
      case 'gzip-plain':
        return { body, header: 'gzip' };
      case 'deflate-plain':
        return { body, header: 'deflate' };
      case 'br-plain':
        return { body, header: 'br' };
      default:
        return { body, header: encoding };
    }
  }

  /** The request the case describes, and whether its answer has no body (HEAD). */
  function build(item: RawCase, last: boolean): { request: RawRequest; head: boolean } {
    const valid = item.route.validParams?.(stack.context)[0];
    let index = 0;
    const target = Buffer.concat([
      ...item.route.path.split(/(\{\d\})/).map((piece) => {
        if (!/^\{\d\}$/.test(piece)) return Buffer.from(piece, 'latin1');
        const at = index++;
        if (item.param !== undefined && at === 0) return bytes(item.param);
        return Buffer.from(encodeURIComponent(valid?.[at] ?? 'x'), 'latin1');
      }),
      bytes(item.query),
    ]);
    const method =
      item.method === 'route' ? item.route.method : item.method === 'lowercase' ? item.route.method.toLowerCase() : item.method;
    const sendsBody = takesBody(item.route) || item.bodyKind === 'not-json';
    const made = sendsBody ? bodyOf(item) : undefined;
    const encoded = made ? encode(made.body, item.encoding) : { body: Buffer.alloc(0) };
    const contentType = made && (item.contentType === 'route' ? made.contentType : item.contentType);
    const headers: Array<[Bytes, Bytes]> = [];
    const version = item.version === 'HTTP/1.1-no-host' ? 'HTTP/1.1' : item.version;
    if (item.version !== 'HTTP/1.1-no-host' && !item.extra.some(([name]) => bytes(name).toString().toLowerCase() === 'host'))
      headers.push(['Host', `127.0.0.1:${port}`]);
    headers.push(...credentialHeaders(item.route, item.credential));
    if (contentType) headers.push(['Content-Type', contentType]);
    if (encoded.header) headers.push(['Content-Encoding', encoded.header]);
    headers.push(...item.extra);
    let body = encoded.body;
    switch (item.framing) {
      case 'length':
        if (sendsBody || body.length > 0) headers.push(['Content-Length', String(body.length)]);
        break;
      case 'chunked':
        headers.push(['Transfer-Encoding', 'chunked']);
        body = Buffer.concat([
          Buffer.from(`${body.length.toString(16)}\r\n`),
          body,
          Buffer.from(body.length > 0 ? '\r\n0\r\n\r\n' : '\r\n'),
        ]);
        break;
      case 'length-and-chunked':
        headers.push(['Content-Length', String(body.length)], ['Transfer-Encoding', 'chunked']);
        break;
      case 'length-short':
        // Declares fewer bytes than it sends: the rest reads as the start of another request.
        headers.push(['Content-Length', String(Math.max(0, body.length - 3))]);
        break;
      case 'two-lengths':
        headers.push(['Content-Length', String(body.length)], ['Content-Length', String(body.length + 1)]);
        break;
      case 'bad-chunk':
        headers.push(['Transfer-Encoding', 'chunked']);
        body = Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
        break;
      case 'length-negative':
        headers.push(['Content-Length', '-1']);
        break;
    }
    // The last of a pipelined series asks the gateway to close after it, so the exchange ends on its own.
    if (last && !item.extra.some(([name]) => bytes(name).toString().toLowerCase() === 'connection')) headers.push(['Connection', 'close']);
    return { request: { method, target, version, headers, body }, head: method === 'HEAD' };
  }

  /** What must hold of every exchange: answers, none 5xx, errors in their surface's shape, no reset. */
  function check(what: string, exchange: RawExchange, expected: number, head: boolean[], path: string): void {
    const shown = () =>
      `${what}\n  -> ${exchange.answers.map((answer) => `${answer.status} ${answer.body.toString().slice(0, 200)}`).join('\n  -> ')}`;
    // The gateway answers every request it read, and a connection whose client said close is closed.
    if (exchange.timedOut)
      throw new Error(
        `${exchange.answers.length} of ${expected} answers, and the connection still open, after ${EXCHANGE_BOUND_MS} ms: ${shown()}`,
      );
    if (exchange.answers.length === 0)
      throw new Error(`${exchange.reset ? 'the connection was reset' : 'the connection closed'} without an answer: ${shown()}`);
    if (exchange.reset && exchange.answers.length < expected)
      throw new Error(`the connection was reset after ${exchange.answers.length} answers: ${shown()}`);
    exchange.answers.forEach((answer: RawAnswer, at) => {
      if (answer.status >= 500) throw new Error(`answered ${answer.status}: ${shown()}`);
      if (!head[at]) expectRawAnswer(path, answer, shown());
    });
  }

  /** One case sent and checked; answers how long it took, for the slowest-cases line. */
  async function sendCase(item: RawCase): Promise<number> {
    const started = performance.now();
    // After an Upgrade request the connection's next bytes belong to the new protocol: no client
    // pipelines behind one. And Node's parser neither answers nor errors on an Upgrade request
    // whose chunked body is malformed (the connection waits for the server's time-outs): a limit
    // of Node's HTTP parser, noted in docs/reliability.md, so such a request is framed well here.
    const upgrades = item.extra.some(([name]) => bytes(name).toString().toLowerCase() === 'upgrade');
    const count = upgrades ? 1 : item.pipelined;
    const framed: RawCase = upgrades && item.framing === 'bad-chunk' ? { ...item, framing: 'chunked' } : item;
    const built = Array.from({ length: count }, (_, at) => build(framed, at === count - 1));
    const head = built.map(({ head: isHead }) => isHead);
    const wire = Buffer.concat(built.map(({ request }) => serialize(request)));
    for (let at = 0; at < count; at += 1) stack.count();
    const exchange = await rawExchange(port, wire, head, { answers: count, boundMs: EXCHANGE_BOUND_MS });
    const first = built[0].request;
    const what = `${first.method} ${bytes(first.target).toString().slice(0, 200)} ${first.version} ×${count} (${JSON.stringify({ ...item, route: `${item.route.method} ${item.route.path}`, query: bytes(item.query).toString().slice(0, 80), extra: item.extra.map(([name, value]) => [bytes(name).toString(), bytes(value).toString().slice(0, 80)]) }).slice(0, 1200)})`;
    check(what, exchange, count, head, item.route.path);
    return performance.now() - started;
  }

  it(
    "answers every mutated request with a 4xx in its surface's shape or a success, never a 5xx, a reset or a restart",
    async () => {
      let sent = 0;
      const slowest: Array<{ ms: number; item: string }> = [];
      // Cases go CONCURRENCY at a time (as clients do), each on its own connection.
      await fc.assert(
        fc.asyncProperty(fc.array(rawCase, { minLength: CONCURRENCY, maxLength: CONCURRENCY }), async (items) => {
          const took = await Promise.all(items.map((item) => sendCase(item)));
          sent += items.length;
          took.forEach((ms, at) => {
            const item = items[at];
            slowest.push({
              ms,
              item: `${item.method} ${item.route.method} ${item.route.path} ${item.bodyKind} ${item.framing} ×${item.pipelined}`,
            });
          });
          slowest.sort((x, y) => y.ms - x.ms).splice(5);
        }),
        { numRuns: Math.ceil(RAW_RUNS / CONCURRENCY), ...settings, endOnFailure: true },
      );
      process.stdout.write(
        `raw HTTP: ${sent} cases; slowest: ${slowest.map(({ ms, item }) => `${Math.round(ms)} ms ${item}`).join('; ')}\n`,
      );
      expect(sent).toBeGreaterThanOrEqual(RAW_RUNS);
      expect(probe.worstInARow).toBeLessThan(3);
    },
    40 * 60_000,
  );

  it('answers a client that declared more body than it sent once it leaves, or not at all, and stays up', async () => {
    for (const route of RAW_ROUTES.filter(takesBody)) {
      const params = route.validParams?.(stack.context)[0] ?? [];
      const path = route.path.replace(/\{(\d)\}/g, (_match, at: string) => encodeURIComponent(params[Number(at)]));
      const credentials = Object.entries(stack.credentialHeaders(route, 'a'))
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const request = Buffer.from(
        `${route.method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${credentials}Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"partial":`,
      );
      stack.count();
      const exchange = await rawExchange(port, request, [false], { answers: 1, boundMs: STALL_MS, thenDestroy: true });
      for (const answer of exchange.answers) {
        expect(answer.status).toBeLessThan(500);
        expectRawAnswer(path, answer, `${route.method} ${path} cut short`);
      }
    }
    await stack.expectNoRestart();
  });

  describe('regression cases (each was a 500 or a crash)', () => {
    const send = async (request: string | Buffer, answers = 1): Promise<RawAnswer[]> => {
      stack.count();
      const exchange = await rawExchange(port, bytes(request), [false], { answers, boundMs: EXCHANGE_BOUND_MS });
      expect({ reset: exchange.reset, timedOut: exchange.timedOut }).toEqual({ reset: false, timedOut: false });
      return exchange.answers;
    };
    const json = (answer: RawAnswer) => JSON.parse(answer.body.toString()) as Record<string, unknown>;
    /** An answer to `path` in its surface's shape (expectRawAnswer), as its status, code and message whichever the shape. */
    const answerOf = (path: string, answer: RawAnswer, what = path) => {
      expectRawAnswer(path, answer, what);
      return { what, status: answer.status, ...(answer.status >= 400 && errorOf(path, answer.body.toString())) };
    };
    /** The request line's target, without its query. */
    const pathOf = (request: string) => request.split(' ')[1].split('?')[0];

    it('a malformed escape in a query name: 400 invalid_request, and the gateway is the same process afterwards', async () => {
      for (const path of ['/v1/error_codes', '/openai/v1/models'])
        for (const query of ['%E0%A4%A=1', '%=1', 'a=1&%E0%A4%A', '%ED%A0%80=1']) {
          const [answer] = await send(`GET ${path}?${query} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
          expect(answerOf(path, answer, `${path}?${query}`)).toEqual({
            what: `${path}?${query}`,
            status: 400,
            code: 'invalid_request',
            message: 'The query string is not validly percent-encoded',
          });
        }
      // The access log writes its line after the answer: a throw there ended the process a moment later.
      const [after] = await send(`GET /v1/error_codes?locale=es HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(after.status).toBe(200);
      await stack.expectNoRestart();
    });

    it('a body declared gzip, deflate or br that is not: 400 invalid_request on every run-starting and secret route', async () => {
      const { a } = stack.context;
      const routes = RAW_ROUTES.filter(
        (route) =>
          route.validBody &&
          [
            '/v1/prompt/invoke',
            '/v1/invoke',
            '/v1/prompt/webhooks/{0}/variants/{1}',
            '/v1/agent/webhooks/{0}',
            '/v1/private/prompts/apply',
            '/openai/v1/chat/completions',
            '/openai/v1/responses',
          ].includes(route.path),
      ).concat(RAW_ROUTES.filter((route) => route.path.endsWith('/webhook_secret/rotate')));
      expect(routes.length).toBeGreaterThanOrEqual(9);
      for (const route of routes)
        for (const encoding of ['gzip', 'deflate', 'br']) {
          const params = route.validParams?.(stack.context)[0] ?? [];
          const path = route.path.replace(/\{(\d)\}/g, (_match, at: string) => encodeURIComponent(params[Number(at)]));
          const body = toJsonText(route.validBody?.(stack.context));
          const credentials = Object.entries(stack.credentialHeaders(route, 'a'))
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('');
          const [answer] = await send(
            `POST ${path} HTTP/1.1\r\nHost: x\r\n${credentials}Content-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
          );
          expect(answerOf(path, answer, `${path} ${encoding}`)).toMatchObject({ status: 400, code: 'invalid_request' });
        }
      expect(a.id).toBeTruthy();
    });

    it('an encoding or charset no route reads: 415 invalid_request; on the upload route any encoding', async () => {
      const { a } = stack.context;
      for (const path of ['/v1/prompt/invoke', '/openai/v1/chat/completions']) {
        const body = toJsonText(RAW_ROUTES.find((route) => route.path === path)?.validBody?.(stack.context));
        const invoke = (headers: string) =>
          send(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\n${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          );
        const [compress] = await invoke('Content-Type: application/json\r\nContent-Encoding: compress\r\n');
        expect(answerOf(path, compress)).toEqual({
          what: path,
          status: 415,
          code: 'invalid_request',
          message: expect.stringContaining('compress'),
        });
        const [latin1] = await invoke('Content-Type: application/json; charset=latin1\r\n');
        expect(answerOf(path, latin1)).toMatchObject({ status: 415, code: 'invalid_request' });
      }
      const form = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--b--\r\n';
      const [upload] = await send(
        `POST /v1/public/workspaces/${a.id}/assets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Encoding: gzip\r\nContent-Length: ${form.length}\r\nConnection: close\r\n\r\n${form}`,
      );
      expect(upload.status).toBe(415);
      expect(json(upload)).toMatchObject({ error_code: 'invalid_request' });
    });

    it('a variant named like a prototype property on the prompt trigger: 404 resource_not_found', async () => {
      const { a } = stack.context;
      // The generated cases may have rotated it more than once: the secret in force now.
      const shown = await fetch(`${stack.gateway}/v1/private/prompts/${a.deployment.deployment}/webhook_secret`, {
        headers: { authorization: `Bearer ${a.key}` },
      });
      const secret = ((await shown.json()) as { webhook_secret: { webhook_secret: string } }).webhook_secret.webhook_secret;
      for (const variant of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
        const body = JSON.stringify({ inputs: { question: 'x' } });
        const [answer] = await send(
          `POST /v1/prompt/webhooks/${a.deployment.prompt_endpoint_id}/variants/${variant} HTTP/1.1\r\nHost: x\r\nX-Service-Webhook-Secret: ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
        expect({ variant, status: answer.status }).toEqual({ variant, status: 404 });
        expect(json(answer)).toMatchObject({ error_code: 'resource_not_found' });
      }
    });

    it('{"overlap_seconds":{"toString":null}} on every rotate route: 422 validation_error naming the field', async () => {
      const { a } = stack.context;
      for (const path of [
        `/v1/private/agents/${a.agent.id}/webhook_secret/rotate`,
        `/v1/private/prompts/${a.deployment.deployment}/webhook_secret/rotate`,
        `/v1/private/workflows/${a.workflow.deployment}/webhook_secret/rotate`,
      ])
        for (const value of HOSTILE_VALUES) {
          const body = JSON.stringify({ overlap_seconds: value });
          const [answer] = await send(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
          );
          expect({ path, body, status: answer.status }).toEqual({ path, body, status: 422 });
          expect(json(answer)).toMatchObject({ error_code: 'validation_error', details: [{ field: 'overlap_seconds' }] });
        }
    });

    it("methods the gateway does not route, CONNECT included: a 4xx in its surface's shape, not a reset", async () => {
      for (const path of ['/v1/models', '/openai/v1/models'])
        for (const request of [
          `TRACE ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `PROPFIND ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          `DELETE ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
          `CONNECT ${path} HTTP/1.1\r\nHost: x\r\n\r\n`,
          `get ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ]) {
          const [answer] = await send(request);
          expect({ request, status: answer.status }).toEqual({ request, status: expect.any(Number) });
          expect(answer.status).toBeGreaterThanOrEqual(400);
          expect(answer.status).toBeLessThan(500);
          expectRawAnswer(pathOf(request), answer, request);
        }
    });

    it('pipelined requests with Expect: 100-continue: every answer whole and in order (a 100 landed inside one)', async () => {
      const { a } = stack.context;
      const one = `GET /v1/public/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nExpect: 100-continue\r\n`;
      // Ten, so that most answers wait behind another, as the ones Node got wrong did.
      const answers = await send(`${`${one}\r\n`.repeat(9)}${one}Connection: close\r\n\r\n`, 10);
      expect(answers.map(({ status }) => status)).toEqual(Array.from({ length: 10 }, () => 200));
      for (const answer of answers) expect(Array.isArray(JSON.parse(answer.body.toString()))).toBe(true);
    });

    it('pipelined identical applies of a deployment not yet created: every one 200, one deployment, created once', async () => {
      const { a } = stack.context;
      const cases = [
        { path: '/v1/private/prompts/apply', list: 'prompts', id: 'prompt_endpoint_id' },
        { path: '/v1/private/workflows/apply', list: 'workflows', id: 'workflow_deployment_id' },
      ];
      for (const { path, list, id } of cases) {
        const route = RAW_ROUTES.find((candidate) => candidate.path === path && candidate.method === 'POST');
        // A name no earlier run applied: the gateway hands the pipelined applies on at once, so they race to create it.
        const name = `pipelined-${randomUUID().slice(0, 8)}`;
        const body = toJsonText(route?.validBody?.(stack.context)).replaceAll(/"generated-(workflow-)?apply"/g, JSON.stringify(name));
        expect(body).toContain(name);
        const one = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
        const answers = await send(`${`${one}\r\n${body}`.repeat(4)}${one}Connection: close\r\n\r\n${body}`, 5);
        expect(answers.map(({ status }) => status)).toEqual(Array.from({ length: 5 }, () => 200));
        const applied = answers.map(
          (answer) => (JSON.parse(answer.body.toString()) as Record<string, Array<Record<string, unknown>>>)[list][0],
        );
        expect(new Set(applied.map((deployment) => deployment[id])).size).toBe(1);
        expect(applied.filter((deployment) => deployment.created === true)).toHaveLength(1);
        const changed = applied.flatMap((deployment) =>
          (deployment.variants as Array<{ changed: boolean }>).map((variant) => variant.changed),
        );
        expect(changed.filter(Boolean)).toHaveLength(changed.length / answers.length);
      }
    });

    it("GET and HEAD of a finished run's events with Connection: close: answered, and the connection closed (a forced keep-alive held it)", async () => {
      const { a } = stack.context;
      const requestId = a.streamRequestId;
      for (const method of ['GET', 'HEAD']) {
        const path = `/v1/public/requests/${requestId}/events`;
        stack.count();
        const exchange = await rawExchange(
          port,
          bytes(
            `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n`,
          ),
          [method === 'HEAD'],
          // One more answer than can come: the exchange ends on the gateway's close, or on the bound.
          { answers: 2, boundMs: EXCHANGE_BOUND_MS },
        );
        expect({
          method,
          requestId,
          timedOut: exchange.timedOut,
          reset: exchange.reset,
          statuses: exchange.answers.map((answer) => answer.status),
        }).toEqual({
          method,
          requestId,
          timedOut: false,
          reset: false,
          statuses: [200],
        });
        expect(exchange.answers[0].headers.connection).toBe('close');
      }
    });

    it("an HTTP/1.1 request without Host: 400 in its surface's shape, where Node answered with no body", async () => {
      for (const path of ['/v1/error_codes', '/openai/v1/models']) {
        const [answer] = await send(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
        expect(answerOf(path, answer)).toEqual({
          what: path,
          status: 400,
          code: 'invalid_request',
          message: 'An HTTP/1.1 request needs a Host header',
        });
      }
    });

    it("Expect values the gateway cannot meet: 417 in its surface's shape", async () => {
      for (const path of ['/v1/prompt/invoke', '/openai/v1/chat/completions']) {
        const [answer] = await send(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nExpect: the-impossible\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
        );
        expect(answerOf(path, answer)).toMatchObject({ status: 417, code: 'invalid_request' });
      }
    });

    it("the OpenAI-compatible surface: bodies that are not a JSON object, endpoints and methods it does not serve: a 4xx in OpenAI's shape", async () => {
      const { a } = stack.context;
      const post = (path: string, body: string) =>
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
      const get = (path: string, headers = '') =>
        `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\n${headers}Connection: close\r\n\r\n`;
      const chat = '/openai/v1/chat/completions';
      const cases: Array<[request: string, status: number, code: string]> = [
        [post(chat, '{"model":'), 400, 'invalid_request'],
        [post(chat, 'null'), 400, 'invalid_request'],
        [post('/openai/v1/responses', '"input"'), 400, 'invalid_request'],
        [post(chat, DeepJson.text(5_000, true)), 400, 'invalid_request'],
        [post(chat, ''), 400, 'validation_error'],
        [post(chat, '[1,2]'), 400, 'validation_error'],
        [post(chat, '{"model":"prompt/a\\u0000b/default","messages":[{"role":"user","content":"x"}]}'), 422, 'validation_error'],
        [post('/openai/v1/completions', '{"model":"x","prompt":"x"}'), 404, 'unsupported_endpoint'],
        [post('/openai/v1/embeddings', '{"model":"x","input":"x"}'), 404, 'unsupported_endpoint'],
        [get('/openai/v1/files'), 404, 'unsupported_endpoint'],
        [get('/openai'), 404, 'unsupported_endpoint'],
        // Express routes without regard to case: so does the surface's error shape.
        [get('/OPENAI/v1/embeddings'), 404, 'unsupported_endpoint'],
        [
          `GET /OpenAI/v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wg_live_not_a_key\r\nConnection: close\r\n\r\n`,
          401,
          'invalid_api_key',
        ],
        [`PUT ${chat} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, 404, 'unsupported_endpoint'],
      ];
      for (const [request, status, code] of cases) {
        const [answer] = await send(request);
        const what = request.slice(0, 120);
        expect(answerOf(pathOf(request), answer, what)).toMatchObject({ what, status, code });
      }
      // A header block over Node's limit is refused by its parser before any path is read: the
      // catalog's 400, without a request id, whatever the target (the one exception under /openai/).
      const [tooLarge] = await send(get('/openai/v1/models', `X-Long: ${'x'.repeat(20_000)}\r\n`));
      expect(tooLarge.headers['x-request-id']).toBeUndefined();
      expect({ status: tooLarge.status, ...json(tooLarge) }).toMatchObject({
        status: 400,
        error_code: 'invalid_request',
        message: 'Request headers are too large',
      });
    });

    it('the dataset import: CSV it cannot read, formats and column maps it does not know, bytes not UTF-8, 11 MiB: a 4xx in the catalog shape', async () => {
      const { a, b } = stack.context;
      const post = (query: string, body: string | Buffer, headers = 'Content-Type: text/csv\r\n', datasetId = a.datasetId) =>
        Buffer.concat([
          Buffer.from(
            `POST /v1/private/datasets/${datasetId}/versions/import?${query} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
          ),
          bytes(body),
        ]);
      const csv = 'question\n"a, quoted\nanswer"\n';
      const cases: Array<[request: Buffer, status: number, code?: string]> = [
        [post('format=csv', 'a,b\n1,2,3\n'), 400, 'validation_error'],
        [post('format=csv', 'a,"b\n'), 400, 'validation_error'],
        [post('format=csv', '\n\n'), 400, 'validation_error'],
        [post('format=xml', csv), 422, 'validation_error'],
        [post('format=csv&format=jsonl', csv), 422, 'validation_error'],
        [post('', csv), 422, 'missing_required_field'],
        [post('format=csv&columns=%7Bnot', csv), 400, 'validation_error'],
        [post('format=csv&columns=%5B%5D', csv), 400, 'validation_error'],
        [post(`format=csv&columns=${encodeURIComponent('{"question":{"x":1}}')}`, csv), 400, 'validation_error'],
        [post(`format=csv&columns=${encodeURIComponent('{"__proto__":"inputs.q"}')}`, csv), 400, 'validation_error'],
        [post('format=csv&base_version=abc', csv), 422, 'validation_error'],
        [post('format=csv&base_version=99999999999', csv), 422, 'validation_error'],
        [post('format=csv&base_version=99', csv), 422, 'validation_error'],
        [post('format=csv', Buffer.from([0x61, 0x0a, 0xc3, 0x28, 0x0a])), 400, 'validation_error'],
        [post('format=csv', Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x0a, 0x00])), 400, 'validation_error'],
        [post('format=csv', 'a\n\u0000\n'), 422, 'validation_error'],
        [post('format=jsonl', '{"inputs":{"a":"\\u0000"}}\n'), 422, 'validation_error'],
        [post('format=jsonl', '{"inputs":{"a":"\\ud800"}}\n'), 422, 'validation_error'],
        [post('format=jsonl', `${DeepJson.text(5_000, true)}\n`), 400, 'validation_error'],
        [post('format=jsonl', `{"inputs":${DeepJson.text(5_000, true)}}\n`), 400, 'invalid_request'],
        [post('format=csv', csv, 'Content-Type: text/csv\r\nContent-Encoding: gzip\r\n'), 400, 'invalid_request'],
        [post('format=csv', csv, 'Content-Type: text/csv\r\nContent-Encoding: compress\r\n'), 415, 'invalid_request'],
        [post('format=csv', Buffer.alloc(11 * 1024 * 1024, 'a')), 413, 'validation_error'],
        [post('format=csv', csv, 'Content-Type: text/csv\r\n', b.datasetId), 404, 'resource_not_found'],
        [post('format=csv', gzipSync(csv), 'Content-Type: application/octet-stream\r\nContent-Encoding: gzip\r\n'), 201],
        [post('format=jsonl', '{"inputs":{"q":1}}\r\n\r\n{"inputs":{}}', ''), 201],
      ];
      const path = `/v1/private/datasets/${a.datasetId}/versions/import`;
      for (const [request, status, code] of cases) {
        const [answer] = await send(request);
        const what = request.subarray(0, 200).toString();
        expect(answerOf(path, answer, what)).toMatchObject({ what, status, ...(code !== undefined && { code }) });
      }
    });

    it('the MCP server: bodies, encodings, sizes and methods it does not read, a missing Host, CONNECT, Expect: a 4xx as a JSON-RPC error', async () => {
      const { a } = stack.context;
      const mcp = '/v1/mcp';
      const post = (body: string | Buffer, headers = 'Content-Type: application/json\r\n', path = mcp) =>
        Buffer.concat([
          Buffer.from(
            `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
          ),
          bytes(body),
        ]);
      const list = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
      const cases: Array<[request: string | Buffer, status: number, code: unknown]> = [
        [post('{"jsonrpc":'), 400, 'invalid_request'],
        [post('null'), 400, 'invalid_request'],
        [post(DeepJson.text(5_000, true)), 400, 'invalid_request'],
        [post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a\\u0000b"}}'), 422, 'validation_error'],
        [post(gzipSync(list), 'Content-Type: application/json\r\nContent-Encoding: gzip\r\n'), 200, undefined],
        [post(list, 'Content-Type: application/json\r\nContent-Encoding: gzip\r\n'), 400, 'invalid_request'],
        [post(list, 'Content-Type: application/json\r\nContent-Encoding: compress\r\n'), 415, 'invalid_request'],
        [post(list, 'Content-Type: application/json; charset=latin1\r\n'), 415, 'invalid_request'],
        // The server reads any body as JSON; the transport then refuses a media type that is not.
        [post(list, 'Content-Type: text/plain\r\n'), 415, -32_000],
        [post(list, 'Content-Type: application/json\r\nAccept: text/html\r\n'), 406, -32_000],
        [post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(1024 * 1024)}"}}`), 413, 'validation_error'],
        [post(list, 'Content-Type: application/json\r\n', '/V1/MCP/'), 200, undefined],
        [`GET ${mcp} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.key}\r\nConnection: close\r\n\r\n`, 405, 'invalid_request'],
        [`PUT ${mcp} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, 405, 'invalid_request'],
        [`DELETE ${mcp} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 405, 'invalid_request'],
        [`OPTIONS ${mcp} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 405, 'invalid_request'],
        [`POST ${mcp} HTTP/1.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, 400, 'invalid_request'],
        [
          `POST ${mcp} HTTP/1.1\r\nHost: x\r\nExpect: the-impossible\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
          417,
          'invalid_request',
        ],
        [`CONNECT ${mcp} HTTP/1.1\r\nHost: x\r\n\r\n`, 404, 'not_found'],
        [
          `POST ${mcp} HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
          403,
          'forbidden',
        ],
        [
          `POST ${mcp} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wgl_not\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
          401,
          'invalid_api_key',
        ],
      ];
      for (const [request, status, code] of cases) {
        const [answer] = await send(request);
        const what = bytes(request).toString().slice(0, 140);
        const shaped = answerOf(pathOf(bytes(request).toString()), answer, what);
        expect(shaped).toMatchObject({ what, status, ...(code !== undefined && { code }) });
        if (status === 405) expect(answer.headers.allow).toBe('POST');
        if (status === 401) expect(answer.headers['www-authenticate']).toBe('Bearer realm="waggle"');
      }
    });
  });

  it('kept every app in the process it started with, and /health/live answering, through the whole tier', async () => {
    // Probing stops here, before the stack's own afterAll stops the apps.
    stopProbing();
    await probeLive();
    await stack.expectNoRestart();
    expect({ failedInARow: probe.worstInARow < 3, probed: probe.sent > 0 }).toEqual({ failedInARow: true, probed: true });
  });
});
