/**
 * The pure parts of a request's admission: the end user and the token estimate read from its
 * body, and OpenAI's formats of the rate-limit headers.
 */

/** The body fields a client caps its answer's tokens with (chat completions, older chat, responses). */
const COMPLETION_TOKEN_FIELDS = ['max_completion_tokens', 'max_tokens', 'max_output_tokens'] as const;

function record(body: unknown): Record<string, unknown> | undefined {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** The `user` of a JSON body when it is a non-empty string; undefined otherwise. */
export function endUserOf(body: unknown): string | undefined {
  const user = record(body)?.user;
  return typeof user === 'string' && user !== '' ? user : undefined;
}

/**
 * Tokens a run is expected to use, reserved before it starts: its prompt (a token per 4 bytes of
 * the body, rounded up) and its answer (the body's own cap when a positive integer, else the
 * configured default).
 */
export function tokenEstimate(body: unknown, bodyBytes: number, defaultCompletionTokens: number): number {
  const fields = record(body);
  let completion = defaultCompletionTokens;
  for (const field of COMPLETION_TOKEN_FIELDS) {
    const value = fields?.[field];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
      completion = value;
      break;
    }
  }
  return Math.ceil(Math.max(0, bodyBytes) / 4) + completion;
}

/** A body's size in bytes: its Content-Length when given, else its JSON text's. */
export function bodyBytesOf(contentLength: string | undefined, body: unknown): number {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (Number.isSafeInteger(declared) && declared >= 0) return declared;
  return body === undefined ? 0 : Buffer.byteLength(JSON.stringify(body) ?? '');
}

/** A wait as OpenAI's `x-ratelimit-reset-*` headers write it: `850ms`, `1s`, `6m0s`, `1h2m3s` (seconds rounded up). */
export function resetDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1_000) return `${Math.ceil(ms)}ms`;
  const total = Math.ceil(ms / 1_000);
  const hours = Math.floor(total / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
