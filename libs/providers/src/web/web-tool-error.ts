import { errorMessage, type NestedMessage } from '@waggle/errors';

/**
 * Why a provider tool (`web_search`, `scrape`) failed. The workflow engine records the code on
 * the step and may show the message to the workspace's users, so the message never holds an API
 * key, a provider's error body or a URL the fetch learnt on the way (redirect targets): only the
 * provider's name, the URL as the caller gave it and a short HTTP status.
 */
export type WebToolErrorCode =
  'not_configured' | 'provider_error' | 'timeout' | 'refused' | 'too_large' | 'http_status' | 'invalid_url' | 'network' | 'unreadable';

export class WebToolError extends Error {
  readonly code: WebToolErrorCode;
  /**
   * Why, as a message id (web_tool_failed's `%{reason}`), so it reads in the workspace's
   * language; `message` is its English text. Text from elsewhere stays as it is.
   */
  readonly reason: NestedMessage | string;
  /** The HTTP status behind `provider_error` (from the search API) or `http_status` (from the scraped site). */
  readonly status?: number;

  constructor(code: WebToolErrorCode, reason: NestedMessage | string, options: { status?: number; cause?: unknown } = {}) {
    super(
      typeof reason === 'string' ? reason : errorMessage(reason, 'en'),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'WebToolError';
    this.reason = reason;
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
  }
}
