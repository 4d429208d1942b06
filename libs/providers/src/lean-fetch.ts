import { AsyncLocalStorage } from 'node:async_hooks';
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';

/**
 * The `fetch` the AI SDK's providers are given: the same HTTP client (undici) as Node's
 * global `fetch`, through its `request` API, without the WHATWG fetch algorithm and web
 * streams around every call, which cost about a tenth of the invocation service's CPU per
 * model call (docs/benchmarks/invoke.md). It covers what the SDK does with a response: status,
 * headers, and reading the body through `body.getReader()` (JSON answers and event
 * streams alike), `text()`, `json()` or `arrayBuffer()`. Anything it does not cover (a
 * `Request` object, a body that is not a string, e.g. a multipart form) goes to the global
 * `fetch` unchanged. Failures keep fetch's form: an abort rejects with the signal's reason,
 * a network failure with `TypeError('fetch failed')` whose cause is undici's error.
 */
export function createLeanFetch(dispatcher?: Dispatcher): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    if (typeof input !== 'string' && !(input instanceof URL)) return fetch(input, init);
    if (body !== undefined && body !== null && typeof body !== 'string') return fetch(input, init);
    const answer = await leanRequest(
      input,
      {
        method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: plainHeaders(init?.headers),
        body: body ?? undefined,
        signal: init?.signal ?? undefined,
      },
      dispatcher,
    );
    return new LeanResponse(String(input), answer) as unknown as Response;
  }) as typeof fetch;
}

/**
 * One request on undici as the lean fetch and the OpenAI chat client send it: the model call's
 * first-byte watcher told, and failures in fetch's form (an abort rejects with the signal's
 * reason, a network failure with `TypeError('fetch failed')` whose cause is undici's error).
 */
export async function leanRequest(
  url: string | URL,
  options: { method: Dispatcher.HttpMethod; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
  dispatcher?: Dispatcher,
): Promise<Dispatcher.ResponseData> {
  const { signal } = options;
  const watch = firstByteWatch.getStore();
  watch?.requestSent();
  let answer: Dispatcher.ResponseData;
  try {
    answer = await request(url, { ...options, dispatcher });
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    throw new TypeError('fetch failed', { cause: error });
  }
  watch?.responseStarted();
  return answer;
}

/** Told when a provider request goes out and when its response starts (its status and headers arrive). */
export interface FirstByteWatcher {
  requestSent(): void;
  responseStarted(): void;
}

/**
 * The watcher of the model call in progress: a call with a fallback left sets one around the
 * SDK call (ModelRun), so the time to the provider's first byte is bounded per request,
 * the SDK's own retries included, without the SDK knowing.
 */
export const firstByteWatch = new AsyncLocalStorage<FirstByteWatcher>();

function plainHeaders(headers: RequestInit['headers']): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return headers as Record<string, string>;
}

/** What the SDK reads of a response's headers: `get`, `has` and iteration, names in lower case. */
export class LeanHeaders {
  private readonly values = new Map<string, string>();

  constructor(raw: Record<string, string | string[] | undefined>) {
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      this.values.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
    }
  }

  get(name: string): string | null {
    return this.values.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.values.has(name.toLowerCase());
  }

  forEach(callback: (value: string, name: string) => void): void {
    this.values.forEach(callback);
  }

  entries(): IterableIterator<[string, string]> {
    return this.values.entries();
  }

  keys(): IterableIterator<string> {
    return this.values.keys();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.values.entries();
  }
}

/** A reader over the Node stream undici answers with, shaped as a web stream reader. */
class LeanBody {
  private iterator: AsyncIterator<Buffer> | undefined;

  constructor(private readonly stream: Readable) {}

  getReader(): {
    read(): Promise<{ done: boolean; value: Uint8Array | undefined }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  } {
    const iterator = (this.iterator ??= this.stream[Symbol.asyncIterator]());
    return {
      read: async () => {
        const next = await iterator.next();
        return next.done ? { done: true, value: undefined } : { done: false, value: next.value };
      },
      cancel: (reason?: unknown) => this.cancel(reason),
      releaseLock: () => undefined,
    };
  }

  async cancel(reason?: unknown): Promise<void> {
    if (!this.stream.destroyed) this.stream.destroy(reason instanceof Error ? reason : undefined);
  }
}

class LeanResponse {
  readonly status: number;
  readonly statusText = '';
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  readonly headers: LeanHeaders;
  readonly body: LeanBody;

  constructor(
    readonly url: string,
    private readonly answer: Dispatcher.ResponseData,
  ) {
    this.status = answer.statusCode;
    this.ok = answer.statusCode >= 200 && answer.statusCode < 300;
    this.headers = new LeanHeaders(answer.headers);
    this.body = new LeanBody(answer.body);
  }

  text(): Promise<string> {
    return this.answer.body.text();
  }

  json(): Promise<unknown> {
    return this.answer.body.json();
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.answer.body.arrayBuffer();
  }
}
