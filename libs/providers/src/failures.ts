import { nestedMessage, WaggleException, type NestedMessage } from '@waggle/errors';
import { APICallError, RetryError } from 'ai';
import type { AttemptErrorCode, ModelRoute } from './types';
import { invalidWorkspaceCredentials } from './workspace-credentials';

/** The provider's stream closed cleanly but never said it had finished. */
export class IncompleteStreamError extends Error {
  override readonly name = 'IncompleteStreamError';
}

interface FailureSummary {
  /** Why, as a message id (provider_request_failed's `%{reason}`), so it reads in the workspace's language. */
  reason: NestedMessage;
  status?: number;
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const BROKEN_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_BODY_TIMEOUT']);

/** Statuses whose provider message describes the caller's request, so it is worth passing on. */
const REQUEST_STATUSES = new Set([400, 404, 413, 422]);

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current !== undefined && current !== null && chain.length < 8 && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Whether a network failure kept the request from connecting or broke an answer under way. */
function networkFailure(error: unknown): 'connect' | 'broken' | undefined {
  for (const link of causes(error)) {
    const { code, message, name } = link as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && CONNECT_CODES.has(code)) return 'connect';
    if (typeof code === 'string' && BROKEN_CODES.has(code)) return 'broken';
    if (name === 'TypeError' && message === 'terminated') return 'broken';
  }
  const { message, name } = error as { message?: unknown; name?: unknown };
  return name === 'TypeError' && message === 'fetch failed' ? 'connect' : undefined;
}

/**
 * A provider's own message for a request it refused, trimmed and with anything shaped like
 * a credential masked: such messages can quote a key prefix ("Incorrect API key: sk-ab…").
 */
export function safeProviderMessage(message: string): string {
  const masked = message
    .replace(/\s+/g, ' ')
    .replace(/\b(sk|pk|rk|key|api|token|bearer)[-_][\w\-*.]{3,}/gi, '[redacted]')
    .replace(/\b[A-Za-z0-9_\-+/=]{32,}\b/g, '[redacted]')
    .trim();
  return masked.length > 200 ? `${masked.slice(0, 199)}…` : masked;
}

function httpReason(status: number, message: string): NestedMessage {
  if (status === 401 || status === 403) return nestedMessage({ detail: 'provider_reason_authentication', params: { status } });
  if (status === 429) return { detail: 'provider_reason_rate_limited' };
  if (status >= 500) return nestedMessage({ detail: 'provider_reason_unavailable', params: { status } });
  if (REQUEST_STATUSES.has(status) && message) {
    return nestedMessage({ detail: 'provider_reason_rejected_saying', params: { status, message: safeProviderMessage(message) } });
  }
  return nestedMessage({ detail: 'provider_reason_rejected', params: { status } });
}

const CONNECT: NestedMessage = { detail: 'provider_reason_connect' };
const BROKEN: NestedMessage = { detail: 'provider_reason_broken' };
const UNREADABLE: NestedMessage = { detail: 'provider_reason_unreadable' };

function summarize(error: unknown): FailureSummary {
  if (RetryError.isInstance(error)) {
    const last = summarize(error.lastError);
    return error.errors.length > 1
      ? {
          ...last,
          reason: nestedMessage({ detail: 'provider_reason_after_attempts', params: { reason: last.reason, count: error.errors.length } }),
        }
      : last;
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined && status >= 400) return { reason: httpReason(status, error.message), status };
    // The SDK reports a failed connection without a status, a body that broke with the 200 it had.
    if (status === undefined) return { reason: CONNECT };
    return { reason: networkFailure(error) ? BROKEN : UNREADABLE };
  }
  // A stream's error event, e.g. Anthropic's `{ type: 'overloaded_error', message }`.
  if (typeof error === 'object' && error !== null && !(error instanceof Error) && typeof (error as { type?: unknown }).type === 'string') {
    const type = String((error as { type: string }).type)
      .replace(/[^\w.-]/g, '')
      .slice(0, 60);
    return { reason: nestedMessage({ detail: 'provider_reason_stream_reported', params: { type } }) };
  }
  const network = networkFailure(error);
  if (network) return { reason: network === 'connect' ? CONNECT : BROKEN };
  if (error instanceof IncompleteStreamError) return { reason: { detail: 'provider_reason_stream_ended' } };
  const name = (error as { name?: unknown })?.name;
  if (name === 'AI_TypeValidationError' || name === 'AI_JSONParseError' || name === 'AI_InvalidResponseDataError') {
    return { reason: UNREADABLE };
  }
  if (name === 'AI_NoOutputGeneratedError') return { reason: { detail: 'provider_reason_no_output' } };
  if (name === 'AI_ToolChoiceViolationError') return { reason: { detail: 'provider_reason_tool_choice' } };
  return { reason: { detail: 'provider_reason_unexpected' } };
}

/** A failed attempt as its record shows it, and whether the next model may be tried (D41). */
export interface AttemptFailure {
  code: AttemptErrorCode;
  status?: number;
  /** 429, 5xx, a connection that failed or broke: another model may well answer. */
  switchable: boolean;
}

/** Anthropic's stream error events that say the service, not the request, failed. */
const UNAVAILABLE_STREAM_ERRORS = new Set(['overloaded_error', 'api_error']);

/**
 * How a failed call is recorded, and whether a fallback may answer instead: a rate limit, a
 * server error, a failed or broken connection yes; a request the provider refused (4xx), an
 * answer it could not read, or credentials it rejected no: another model would be asked the
 * same thing, or the operator has something to fix.
 */
export function attemptFailure(error: unknown): AttemptFailure {
  if (RetryError.isInstance(error)) return attemptFailure(error.lastError);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === 429) return { code: 'rate_limited', status, switchable: true };
    if (status !== undefined && status >= 500) return { code: 'provider_unavailable', status, switchable: true };
    if (status !== undefined && status >= 400) return { code: 'provider_error', status, switchable: false };
    if (status === undefined || networkFailure(error)) return { code: 'connection_failed', switchable: true };
    return { code: 'provider_error', switchable: false };
  }
  if (typeof error === 'object' && error !== null && !(error instanceof Error) && typeof (error as { type?: unknown }).type === 'string') {
    const type = (error as { type: string }).type;
    if (type === 'rate_limit_error') return { code: 'rate_limited', switchable: true };
    return UNAVAILABLE_STREAM_ERRORS.has(type)
      ? { code: 'provider_unavailable', switchable: true }
      : { code: 'provider_error', switchable: false };
  }
  if (networkFailure(error) || error instanceof IncompleteStreamError) return { code: 'connection_failed', switchable: true };
  return { code: 'provider_error', switchable: false };
}

/**
 * A failed provider call as the one error services raise: the provider is named in the
 * message and in `details`, with the HTTP status when there was one. The provider's raw
 * error is not attached: it may hold request data or quote credentials.
 */
export function providerFailure(error: unknown, route: ModelRoute): WaggleException {
  if (error instanceof WaggleException) return error;
  const { reason, status } = summarize(error);
  // The workspace's own key refused: theirs to fix, not the provider's failure (and never the operator's key instead).
  if (route.workspaceCredential && (status === 401 || status === 403)) {
    const refused = invalidWorkspaceCredentials(route.provider, route.providerName, status);
    attemptFailures.set(refused, attemptFailure(error));
    return refused;
  }
  const failure = new WaggleException('provider_error', {
    detail: 'provider_request_failed',
    params: { provider: route.providerName, reason },
    details: { provider: route.provider, ...(status !== undefined && { status }) },
  });
  attemptFailures.set(failure, attemptFailure(error));
  return failure;
}

/** What each provider_error was before it was shaped for clients (which keeps none of the provider's error). */
const attemptFailures = new WeakMap<WaggleException, AttemptFailure>();

/** attemptFailure of a call's failure, whether or not it was already shaped by providerFailure. */
export function attemptFailureOf(error: unknown): AttemptFailure {
  return (error instanceof WaggleException && attemptFailures.get(error)) || attemptFailure(error);
}

/** What an aborted call rejects with: the signal's reason when it is an Error, an `AbortError` otherwise. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  // Duck-typed: a DOMException or an Error from another realm is still the caller's reason.
  if (
    typeof reason === 'object' &&
    reason !== null &&
    typeof (reason as Error).name === 'string' &&
    typeof (reason as Error).message === 'string'
  ) {
    return reason as Error;
  }
  return new DOMException(typeof reason === 'string' ? reason : 'The operation was aborted.', 'AbortError');
}

/** True for the errors an aborted call rejects with when the signal carried no reason of its own. */
export function isAbortError(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}
