import { ERROR_CATALOG, type SupportedLocale } from './error-catalog.data';
import { WaggleException, type WaggleErrorWire } from './waggle.exception';

/** A run stream's last event when the run failed after the stream began (prompt and agent streams alike). */
export interface StreamErrorEvent {
  request_id: string;
  type: 'error';
  error: string;
  message: string;
  error_code: string;
  error_type: string;
  status_code: number;
  /** The provider that failed, on a provider's failure. */
  provider?: string;
  /**
   * The failure as it crosses processes (message id and parameters), so the gateway renders
   * `error` and `message` in the workspace's language; `localizeStreamEvent` removes it, and
   * a client never sees it.
   */
  failure?: WaggleErrorWire;
}

export function streamErrorEvent(requestId: string, failure: WaggleException, provider?: string): StreamErrorEvent {
  return {
    request_id: requestId,
    type: 'error',
    error: failure.message,
    message: failure.message,
    error_code: failure.code,
    error_type: ERROR_CATALOG[failure.code].category,
    status_code: failure.status,
    ...(provider !== undefined && { provider }),
    failure: failure.toWire(),
  };
}

/**
 * A run stream's event as a client in `locale` gets it: an error event's `error` and
 * `message` in that language (in English byte for byte what the service wrote), without the
 * `failure` it carried; any other event as it is.
 */
export function localizeStreamEvent(event: unknown, locale: SupportedLocale): unknown {
  if (typeof event !== 'object' || event === null || !('failure' in event) || (event as { type?: unknown }).type !== 'error') return event;
  const { failure, ...rest } = event as StreamErrorEvent;
  const exception = WaggleException.fromWire(failure);
  if (!exception) return rest;
  const message = exception.messageIn(locale);
  return { ...rest, error: message, message };
}
