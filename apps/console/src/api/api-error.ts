/**
 * An error answer of Waggle's API as the console shows it: the catalog's message (in the
 * workspace's language, as the gateway answered it), its code, and the ids an operator looks
 * the request up by.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorCode: string | null,
    /** The `x-request-id` header when the answer has one (the OpenAI-compatible and MCP surfaces), else the run's `request_id` when the body names one. */
    readonly requestId: string | null,
    /** The trace that served the request (the `traceparent` every answer carries): what the access log and traces are searched by. */
    readonly traceId: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The trace id of a W3C `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`), or null when the header is absent or malformed. */
export function traceIdOf(traceparent: string | null): string | null {
  const match = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent?.trim() ?? '');
  return match && !/^0+$/.test(match[1]) ? match[1] : null;
}

/**
 * Reads an error answer: the catalog's shape (`{error, message, error_code, …}`), the bare
 * `{error}` of the concurrency cap, or anything else (a proxy's page), which gets a message
 * naming the status rather than its body.
 */
export function apiErrorOf(status: number, body: unknown, headers: { get(name: string): string | null }): ApiError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
  const message = text(fields.message) ?? text(fields.error) ?? `The server answered ${status}.`;
  const requestId = text(headers.get('x-request-id')) ?? text(fields.request_id);
  return new ApiError(status, message, text(fields.error_code), requestId, traceIdOf(headers.get('traceparent')));
}
