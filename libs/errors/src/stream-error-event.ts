import { ERROR_CATALOG } from './error-catalog.data';
import type { WaggleException } from './waggle.exception';

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
  };
}
