import { nestedMessage } from '@waggle/errors';
import { errorCodeOf } from './error-code';
import { WebToolError } from './web-tool-error';

/** A search API's answer is a page of results; anything much larger is not one. */
export const MAX_SEARCH_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface SearchRequest {
  /** The provider's display name, used in messages. */
  provider: string;
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

async function readCapped(response: Response, provider: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_SEARCH_RESPONSE_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new WebToolError(
      'provider_error',
      nestedMessage({ detail: 'web_answered_too_much', params: { provider, mebibytes: MAX_SEARCH_RESPONSE_BYTES / (1024 * 1024) } }),
    );
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > MAX_SEARCH_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new WebToolError(
        'provider_error',
        nestedMessage({ detail: 'web_answered_too_much', params: { provider, mebibytes: MAX_SEARCH_RESPONSE_BYTES / (1024 * 1024) } }),
      );
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received).toString('utf8');
}

/**
 * One call to a search API, parsed as JSON. The caller's `signal` cancels it (its reason is
 * rethrown as it is: a cancelled run is not a tool failure); the time cap covers the answer's
 * body too. A non-2xx answer is `provider_error` naming the status and its reason phrase only:
 * error bodies can quote the request, the key included.
 */
export async function searchJson(request: SearchRequest): Promise<unknown> {
  const { provider, timeoutMs, signal } = request;
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const failure = (error: unknown): unknown => {
    if (signal?.aborted) return signal.reason ?? error;
    if (error instanceof WebToolError) return error;
    if (deadline.aborted)
      return new WebToolError('timeout', nestedMessage({ detail: 'web_no_answer_in_time', params: { provider, ms: timeoutMs } }));
    const code = errorCodeOf(error);
    return new WebToolError(
      'network',
      code
        ? nestedMessage({ detail: 'web_unreachable_code', params: { provider, code } })
        : nestedMessage({ detail: 'web_unreachable', params: { provider } }),
      { cause: error },
    );
  };
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: combined,
      redirect: 'follow',
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const phrase = response.statusText ? ` ${response.statusText.slice(0, 60)}` : '';
      throw new WebToolError(
        'provider_error',
        nestedMessage({ detail: 'web_answered_status', params: { provider, status: response.status, phrase } }),
        { status: response.status },
      );
    }
    const text = await readCapped(response, provider);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new WebToolError('provider_error', nestedMessage({ detail: 'web_answered_not_json', params: { provider } }));
    }
  } catch (error) {
    throw failure(error);
  }
}

/** `base` with `path` appended to its own path (a SearXNG behind `/searx` keeps its prefix). */
export function endpointUrl(base: string, path: string, setting: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new WebToolError('not_configured', nestedMessage({ detail: 'web_setting_not_absolute', params: { setting } }));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebToolError('not_configured', nestedMessage({ detail: 'web_setting_not_http', params: { setting } }));
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  url.search = '';
  url.hash = '';
  return url;
}
