import { localizeDetails, WaggleException, type SupportedLocale } from '@waggle/errors';
import { newRequestId } from '@waggle/platform';
import type { Request } from 'express';
import type { IncomingMessage } from 'node:http';

/** The OpenAI-compatible surface's base path (decisions): its answers use OpenAI's error object. */
export const OPENAI_BASE_PATH = '/openai/v1';

/**
 * A request of the OpenAI-compatible surface, by its path (before routing: every refusal, routed
 * or not, answers in its shape). Without regard to case, as Express routes: `/OpenAI/v1/models`
 * reaches the surface's controllers too.
 */
export function isOpenAiRequest(request: { url?: string; originalUrl?: string }): boolean {
  const head = (request.originalUrl ?? request.url ?? '').slice(0, 8).toLowerCase();
  return head === '/openai' || head === '/openai/' || head === '/openai?';
}

/** OpenAI's error object, as its SDKs read it into their exception classes. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** Where a refusal names a model the key cannot run: OpenAI's clients know `model_not_found`. */
const MODEL_NOT_FOUND_DETAILS: ReadonlySet<string> = new Set([
  'agent_not_found',
  'deployment_not_found',
  'prompt_deployment_not_found',
  'variant_not_found',
  'variant_not_found_named',
  'prompt_deployment_or_variant_gone',
  'openai_model_not_found',
  'openai_agent_name_ambiguous',
]);

/** Refusals a retry cannot change, though their status is one OpenAI's clients retry (408, 409, 429). */
const NOT_RETRYABLE_CODES: ReadonlySet<string> = new Set(['api_rate_limit_exceeded', 'run_cancelled']);

function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 402) return 'insufficient_quota';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The first field a refusal names, as OpenAI's `param`. */
function paramOf(details: unknown): string | null {
  if (!Array.isArray(details)) return null;
  const field = (details[0] as { field?: unknown } | undefined)?.field;
  return typeof field === 'string' ? field : null;
}

/** The first message about that field: more telling than the catalog's general text (`messages[0].role must be …`). */
function fieldMessageOf(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  const message = (details[0] as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(message) && typeof message[0] === 'string' ? message[0] : undefined;
}

/**
 * Whether OpenAI's clients should try again (`x-should-retry`): they retry 408, 409, 429 and 5xx
 * by default, so every refusal says it. A daily cap, a cancelled run, a validation can never
 * succeed by retrying; a key still in use (409 idempotency_key_in_use) replays the first
 * answer once it ends, and a concurrency cap or an overload passes.
 */
export function shouldRetry(exception: WaggleException): boolean {
  if (NOT_RETRYABLE_CODES.has(exception.code)) return false;
  return exception.status >= 500 || exception.status === 408 || exception.status === 409 || exception.status === 429;
}

/** A refusal as OpenAI's error object, its status and the headers its clients read. */
export function toOpenAiError(
  exception: WaggleException,
  locale: SupportedLocale,
  request: Pick<Request, 'method' | 'path'>,
): { status: number; body: OpenAiErrorBody; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'x-should-retry': String(shouldRetry(exception)) };
  let shaped = exception;
  let code: string = exception.code;
  let status = exception.status;
  if (exception.code === 'not_found' && exception.detail === undefined) {
    // Nothing is routed here: an endpoint of OpenAI's API this surface does not serve.
    code = 'unsupported_endpoint';
    shaped = new WaggleException('resource_not_found', {
      status: 404,
      detail: 'openai_endpoint_unsupported',
      params: { method: request.method, path: request.path },
    });
  } else if (exception.detail !== undefined && MODEL_NOT_FOUND_DETAILS.has(exception.detail)) {
    // The native routes answer an unknown agent 422 (the contract's); OpenAI's clients expect 404.
    code = 'model_not_found';
    status = 404;
  }
  const details = localizeDetails(shaped.details, locale);
  const message = fieldMessageOf(details) ?? shaped.messageIn(locale);
  return {
    status: code === 'unsupported_endpoint' ? 404 : status,
    headers,
    body: { error: { message, type: typeOf(status), param: paramOf(details), code } },
  };
}

/** A refusal answered before any route runs, as OpenAI's error object in JSON text; English, since no workspace tells the language yet. */
export function openAiErrorText(exception: WaggleException, request: Pick<IncomingMessage, 'method' | 'url'>): string {
  return JSON.stringify(toOpenAiError(exception, 'en', { method: request.method ?? '', path: (request.url ?? '').split('?')[0] }).body);
}

/** The headers of such a refusal: an `x-request-id` of its own (every answer of the surface has one; no run began) and `x-should-retry`. */
export function earlyOpenAiHeaders(exception: WaggleException): Record<string, string> {
  return { 'x-request-id': newRequestId(), 'x-should-retry': String(shouldRetry(exception)) };
}
