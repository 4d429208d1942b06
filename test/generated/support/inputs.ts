import { ERROR_CATALOG } from '@waggle/errors';
import fc from 'fast-check';

/** Strings that broke, or could break, something on the way to storage. */
export const nastyString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '',
    'a\u0000b',
    '\u0000',
    '\ud800',
    '..',
    '../../etc/passwd',
    '%',
    '%00',
    '%zz',
    'https://docs.example.invalid/%E0%A4%A',
    '🙂',
    ' ',
    'x'.repeat(3000),
    "' OR 1=1 --",
    '{{ 7 * 7 }}',
    'null',
    '[]',
  ),
);

/**
 * JSON nested `levels` deep, as an array or an object chain. Kept as a marker and written
 * out as text when the body is serialized: JSON.stringify itself would overflow on it.
 */
export class DeepJson {
  constructor(
    readonly levels: number,
    readonly asObject: boolean,
  ) {}

  toJSON(): string {
    return `\u0001deep:${this.levels}:${this.asObject ? 1 : 0}\u0001`;
  }

  static text(levels: number, asObject: boolean): string {
    return asObject ? `${'{"n":'.repeat(levels)}"leaf"${'}'.repeat(levels)}` : `${'['.repeat(levels)}"leaf"${']'.repeat(levels)}`;
  }
}

export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001deep:(\d+):([01])\\u0001"/g, (_marker, levels: string, asObject: string) =>
    DeepJson.text(Number(levels), asObject === '1'),
  );
}

/** A path or query value as a client would send it (a lone surrogate cannot be percent-encoded, so it goes as U+FFFD). */
export function encodeComponent(value: string): string {
  return encodeURIComponent(Buffer.from(value).toString());
}

export const deepValue = fc
  .tuple(fc.integer({ min: 60, max: 6_000 }), fc.boolean())
  .map(([levels, asObject]) => new DeepJson(levels, asObject));
/**
 * Objects whose own `toString`/`valueOf` are not functions (and an own `__proto__` key, as
 * JSON.parse makes it): code that stringifies a caller's value naively (`String(v)`, a template,
 * `Number(v)`) throws on them; the answer must still be a catalog 4xx or a success.
 */
export const hostileObject = fc.constantFrom<unknown>(
  { toString: null },
  { valueOf: null, toString: null },
  { toString: 'x', valueOf: 1 },
  JSON.parse('{"__proto__":{"toString":null},"constructor":null}'),
  { toJSON: null, hasOwnProperty: null },
);
export const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 4 }), nastyString, deepValue, hostileObject);

/** A body as sent on the wire: JSON text (usually), or anything else. */
export function bodyArbitrary(valid: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const mutated = valid
    ? fc.oneof(
        // One field swapped for any value, or a new field added.
        fc.tuple(fc.constantFrom(...Object.keys(valid), 'unexpected'), anyJson).map(([field, value]) => ({ ...valid, [field]: value })),
        // One field removed.
        fc.constantFrom(...Object.keys(valid)).map((field) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== field))),
        // A NUL or a deep value inside the nested objects (inputs, metadata…).
        fc.tuple(fc.constantFrom(...Object.keys(valid)), fc.oneof(nastyString, deepValue)).map(([field, value]) => ({
          ...valid,
          [field]:
            typeof valid[field] === 'object' && valid[field] !== null && !Array.isArray(valid[field])
              ? { ...(valid[field] as object), generated: value }
              : value,
        })),
        // A nested field (an input a template prints, a metadata value) given an object that cannot be stringified.
        fc.tuple(fc.constantFrom(...Object.keys(valid)), hostileObject).map(([field, value]) => {
          const current = valid[field];
          if (typeof current !== 'object' || current === null || Array.isArray(current)) return { ...valid, [field]: value };
          const key = Object.keys(current)[0] ?? 'generated';
          return { ...valid, [field]: { ...(current as object), [key]: value } };
        }),
        fc.constant(valid),
      )
    : fc.constant({});
  return fc.oneof(
    { weight: 6, arbitrary: mutated.map(toJsonText) },
    { weight: 2, arbitrary: anyJson.map(toJsonText) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        'not json',
        '[1,2',
        '\u0000',
        '{"a":"\\u0000"}',
        'null',
        '"string"',
        '{"__proto__":{"polluted":true}}',
      ),
    },
  );
}

/**
 * Multipart bodies as clients get them wrong (and right): parts in any field, file names and
 * part types with quotes and line breaks, bodies cut short, boundaries that do not match
 * the header's. Answers the Content-Type with its boundary, and the body.
 */
export function multipartArbitrary(): fc.Arbitrary<{ contentType: string; body: Buffer }> {
  const part = fc.record({
    field: fc.oneof({ weight: 3, arbitrary: fc.constant('file') }, { weight: 1, arbitrary: nastyString }),
    filename: fc.option(fc.oneof(fc.constantFrom('notes.txt', 'pixel.png', ''), nastyString), { nil: undefined }),
    type: fc.option(fc.oneof(fc.constantFrom('text/plain', 'image/png', 'application/octet-stream', 'a/b; x="y"'), nastyString), {
      nil: undefined,
    }),
    content: fc.oneof(
      nastyString.map((text) => Buffer.from(text)),
      fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
    ),
  });
  return fc
    .record({
      boundary: fc.constantFrom('gen-boundary', 'x', '----WebKitFormBoundary7MA4YWxkTrZu0gW'),
      declared: fc.constantFrom('same', 'other', 'none', 'not-multipart'),
      parts: fc.array(part, { maxLength: 3 }),
      cut: fc.option(fc.nat({ max: 4096 }), { nil: undefined, freq: 4 }),
    })
    .map(({ boundary, declared, parts, cut }) => {
      const pieces = parts.map((item) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${item.field}"${item.filename === undefined ? '' : `; filename="${item.filename}"`}\r\n${item.type === undefined ? '' : `Content-Type: ${item.type}\r\n`}\r\n`,
          ),
          item.content,
          Buffer.from('\r\n'),
        ]),
      );
      const whole = Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
      const body = cut === undefined ? whole : whole.subarray(0, cut);
      const contentType = {
        same: `multipart/form-data; boundary=${boundary}`,
        other: 'multipart/form-data; boundary=elsewhere',
        none: 'multipart/form-data',
        'not-multipart': 'application/json',
      }[declared];
      return { contentType, body };
    });
}

export function queryArbitrary(): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.oneof(
      fc.constantFrom(
        'locale',
        'limit',
        'user',
        'status',
        'artifact',
        'before',
        'request_id',
        'metadata_key',
        'metadata_value',
        'model',
        'api_key',
        'min_cost_micros',
        'max_cost_micros',
        'from',
        'to',
        'bucket',
        'group_by',
        'since',
        'key',
        'metadata[a]',
      ),
      nastyString,
    ),
    fc.oneof(nastyString, fc.integer().map(String), fc.constantFrom('es', 'en', '0', '-1', '1e309', '2026-01-01T00:00:00Z', 'NaN')),
  );
  return fc
    .array(pair, { maxLength: 4 })
    .map((pairs) => pairs.map(([key, value]) => `${encodeComponent(key)}=${encodeComponent(value)}`).join('&'));
}

export const KNOWN_CODES = new Set(Object.keys(ERROR_CATALOG));

/** An error answer's body, which must be JSON. */
function errorBodyOf(status: number, text: string, what: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${what}: ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}

/** The catalog's error shape: `error`, `message`, `error_code` from the catalog and `code` equal to it; the concurrency cap's 429 is `{error}` alone. */
export function expectCatalogShape(status: number, text: string, what: string): void {
  const body = errorBodyOf(status, text, what);
  if (status === 429 && Object.keys(body).length === 1) {
    expect(body).toEqual({ error: expect.any(String) });
    return;
  }
  expect(body).toMatchObject({
    error: expect.any(String),
    message: expect.any(String),
    error_code: expect.any(String),
    code: body.error_code,
  });
  if (!KNOWN_CODES.has(body.error_code as string)) throw new Error(`${what}: error_code ${String(body.error_code)} is not in the catalog`);
}

/** Whether `path` (without its query) is of the OpenAI-compatible surface (decisions, "Beyond the contract"), whose answers have their own error object. */
export function onOpenAiSurface(path: string): boolean {
  // Without regard to case, as Express routes.
  const lower = path.toLowerCase();
  return lower === '/openai' || lower.startsWith('/openai/');
}

/** decisions, "errors": every answer of the OpenAI-compatible surface carries its run's `request_id` as `x-request-id`. */
export const OPENAI_REQUEST_ID = /^req_[0-9a-f]{32}$/;

const nullableString = (value: unknown) => typeof value === 'string' || value === null;

/** OpenAI's error object, as its SDKs read it: `{error: {message, type, param, code}}` and nothing else. */
export function expectOpenAiShape(status: number, text: string, what: string): void {
  const body = errorBodyOf(status, text, what);
  const error = body.error as Record<string, unknown> | undefined;
  const shaped =
    Object.keys(body).length === 1 &&
    typeof error === 'object' &&
    error !== null &&
    Object.keys(error).sort().join() === 'code,message,param,type' &&
    typeof error.message === 'string' &&
    typeof error.type === 'string' &&
    nullableString(error.param) &&
    nullableString(error.code);
  if (!shaped) throw new Error(`${what}: ${status} is not in OpenAI's error shape: ${text.slice(0, 300)}`);
}

/** Whether `path` (without its query) is the MCP server's (the spec's decisions, MCP), whose refusals are JSON-RPC errors. */
export function onMcpSurface(path: string): boolean {
  // Without regard to case, as Express routes; with or without a trailing slash.
  const lower = path.split('?')[0].toLowerCase();
  return lower === '/v1/mcp' || lower === '/v1/mcp/';
}

const isRequestId = (value: unknown) =>
  value === null || typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/** A JSON-RPC 2.0 error response, as MCP clients read one: `{jsonrpc, error: {code, message, data?}, id}`, nothing else. */
export function expectMcpShape(status: number, text: string, what: string): void {
  const body = errorBodyOf(status, text, what);
  const error = body.error as Record<string, unknown> | undefined;
  const shaped =
    Object.keys(body).sort().join() === 'error,id,jsonrpc' &&
    body.jsonrpc === '2.0' &&
    isRequestId(body.id) &&
    typeof error === 'object' &&
    error !== null &&
    Object.keys(error).every((key) => ['code', 'message', 'data'].includes(key)) &&
    Number.isInteger(error.code) &&
    typeof error.message === 'string';
  if (!shaped) throw new Error(`${what}: ${status} is not a JSON-RPC error: ${text.slice(0, 300)}`);
  // The gateway's own refusals carry the catalog's body as data; the SDK's carry none, or the protocol's own (a revision refused).
  const data = error.data as Record<string, unknown> | undefined;
  if (typeof data === 'object' && data !== null && 'error_code' in data)
    expectCatalogShape(status, JSON.stringify(data), `${what} (its data)`);
}

/**
 * What every answer to `path` must look like, by the surface the path belongs to: under /openai/
 * an `x-request-id` on every answer and errors in OpenAI's shape; at /v1/mcp errors as JSON-RPC
 * errors; elsewhere errors in the catalog's. `header` reads an answer header by its lower-case name.
 */
export function expectAnswerShape(
  path: string,
  status: number,
  text: string,
  header: (name: string) => string | null | undefined,
  what: string,
): void {
  if (onMcpSurface(path)) {
    if (status >= 400) expectMcpShape(status, text, what);
    return;
  }
  if (!onOpenAiSurface(path)) {
    if (status >= 400) expectCatalogShape(status, text, what);
    return;
  }
  const requestId = header('x-request-id');
  if (!OPENAI_REQUEST_ID.test(requestId ?? ''))
    throw new Error(`${what}: ${status} without an x-request-id of the form req_<32 hex> (${String(requestId)})`);
  if (status >= 400) expectOpenAiShape(status, text, what);
}

/**
 * The code and message of an error answer to `path`: `error.code` and `error.message` on the
 * OpenAI-compatible surface, the catalog code in the JSON-RPC error's `data` and its message at
 * the MCP server, `error_code` and `message` elsewhere.
 */
export function errorOf(path: string, text: string): { code: unknown; message: unknown } {
  const body = JSON.parse(text) as {
    error_code?: unknown;
    message?: unknown;
    error?: { code?: unknown; message?: unknown; data?: { error_code?: unknown } };
  };
  if (onMcpSurface(path)) return { code: body.error?.data?.error_code ?? body.error?.code, message: body.error?.message };
  return onOpenAiSurface(path)
    ? { code: body.error?.code, message: body.error?.message }
    : { code: body.error_code, message: body.message };
}
