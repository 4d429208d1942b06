import { rootCertificates } from 'node:tls';
import { request, type Dispatcher } from 'undici';
import { errorCodeOf } from '@waggle/providers';
import { CallbackUrlPolicy, createGuardedDispatcher, refusalOf, type HostWord, type UrlWord } from '@waggle/webhooks';

export const DEFAULT_ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_ATTACHMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_ATTACHMENT_MAX_REDIRECTS = 3;

export interface AttachmentFetcherOptions {
  /** Largest body accepted, in bytes (default 20 MiB); a longer one is cut off and refused. */
  maxBytes?: number;
  /** Time cap for the whole fetch, redirects and body included (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed at most (default 3). */
  maxRedirects?: number;
  /**
   * Hosts, IP addresses and CIDR ranges that may be reached although they are not public
   * (comma-separated or a list, as CALLBACK_URL_ALLOWLIST), e.g. `127.0.0.1` in tests.
   * Attachments are fetched over https only, allowlisted or not.
   */
  allowlist?: string | readonly string[];
  /** The setting the allowlist comes from, named when an entry is invalid. */
  allowlistSetting?: string;
  /**
   * Extra trust anchors (PEM), in addition to the usual public ones: for tests with their own
   * certificate authority. Verification itself stays on. A deployed service uses
   * NODE_EXTRA_CA_CERTS instead.
   */
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /** Time cap for one TCP+TLS connection (default: the smaller of 10 s and `timeoutMs`). */
  connectTimeoutMs?: number;
  /**
   * How refusals name the URL (default `attachment URL`, `attachment host`): the scraper says `page URL`.
   * `urlWord` and `hostWord` are the URL policy's message ids for the same words.
   */
  wording?: FetchWording;
  /** The User-Agent sent (default `Waggle-Attachments/1`). */
  userAgent?: string;
  /** The Accept header sent (default any type). */
  accept?: string;
}

export interface FetchedAttachment {
  /** The URL asked for. */
  url: string;
  /** Where the body finally came from, after redirects. May carry the server's own query tokens: do not log it. */
  finalUrl: string;
  /** The Content-Type the server declared, if any. */
  contentType: string | null;
  /** The file name of a Content-Disposition header, if any. */
  fileName: string | null;
  bytes: Buffer;
  redirects: number;
}

export type AttachmentFetchErrorCode =
  'invalid_url' | 'refused' | 'too_many_redirects' | 'too_large' | 'timeout' | 'aborted' | 'http_status' | 'network';

/**
 * Why an attachment could not be fetched. `message` is safe to show to the model and the caller:
 * it names the URL as the caller gave it and nothing the fetch learnt on the way (no redirect
 * targets, no response bodies).
 */
export class AttachmentFetchError extends Error {
  readonly code: AttachmentFetchErrorCode;
  readonly url: string;
  /** The HTTP status, for `http_status`. */
  readonly status?: number;

  constructor(code: AttachmentFetchErrorCode, url: string, reason: string, status?: number) {
    super(`could not fetch ${url}: ${reason}`);
    this.name = 'AttachmentFetchError';
    this.code = code;
    this.url = url;
    this.status = status;
  }
}

/** How a fetcher's refusals name the URL: in English for its own reasons, as message ids for the URL policy's. */
export interface FetchWording {
  url: string;
  urlWord: UrlWord;
  hostWord: HostWord;
}

const ATTACHMENT_WORDING: FetchWording = { url: 'attachment URL', urlWord: 'url_word_attachment', hostWord: 'host_word_attachment' };
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_CONNECT_TIMEOUT_MS = 10_000;

const TLS_ERROR_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function networkReason(code: string | null): string {
  if (code === null) return 'the connection failed';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name could not be resolved';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'the connection timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'the connection was closed by the server';
  if (TLS_ERROR_CODES.has(code) || code.startsWith('ERR_TLS') || code.includes('CERT')) {
    return `the server's TLS certificate was not accepted (${code})`;
  }
  return `the connection failed (${code})`;
}

/** `filename` of a Content-Disposition header (the RFC 5987 `filename*` form first). */
export function fileNameOfContentDisposition(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:[\w-]+)?'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;]+))/i.exec(header);
  const name = (plain?.[1] ?? plain?.[2])?.trim();
  return name ? name : null;
}

/** Lets go of a body that is not wanted (a redirect's, an error page): a short one is read so the connection can be reused. */
async function discardBody(body: Dispatcher.ResponseData['body']): Promise<void> {
  await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
}

/** Drops a body half read, closing its connection; the abort error that follows is expected. */
function abandonBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * Fetches attachment URLs for `read_file` through the same SSRF guard as callbacks: every
 * connection (the first and each redirect's) goes only to an address the guard accepts, checked
 * at connect time on the address actually dialled, so a host name that resolves to a private,
 * loopback, link-local or metadata address is refused unless allowlisted. Redirects are followed
 * by hand (https only, at most `maxRedirects`), the body is streamed and cut off past `maxBytes`,
 * and the whole fetch has one time cap. Failures are AttachmentFetchError.
 */
export class AttachmentFetcher {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  private readonly dispatcher: Dispatcher;
  private readonly wording: FetchWording;
  private readonly headers: Record<string, string>;

  constructor(options: AttachmentFetcherOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_ATTACHMENT_MAX_BYTES;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_ATTACHMENT_TIMEOUT_MS;
    this.maxRedirects = options.maxRedirects ?? DEFAULT_ATTACHMENT_MAX_REDIRECTS;
    const allowlist = typeof options.allowlist === 'string' ? options.allowlist : (options.allowlist ?? []).join(',');
    this.wording = options.wording ?? ATTACHMENT_WORDING;
    this.headers = {
      accept: options.accept ?? '*/*',
      'accept-encoding': 'identity',
      'user-agent': options.userAgent ?? 'Waggle-Attachments/1',
    };
    const policy = new CallbackUrlPolicy(allowlist, {
      url: this.wording.urlWord,
      host: this.wording.hostWord,
      setting: options.allowlistSetting ?? 'ATTACHMENT_URL_ALLOWLIST',
    });
    const extraCa = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
    this.dispatcher = createGuardedDispatcher(policy, {
      connectTimeoutMs: options.connectTimeoutMs ?? Math.min(MAX_CONNECT_TIMEOUT_MS, this.timeoutMs),
      // An explicit `ca` replaces Node's default trust store, so the public roots go along.
      ...(extraCa.length === 0 ? {} : { tls: { ca: [...rootCertificates, ...extraCa.map((pem) => pem.toString())].join('\n') } }),
    });
  }

  /** Fetches `url` (as the caller gave it); `signal` aborts it early. Throws AttachmentFetchError. */
  async fetch(url: string, options: { signal?: AbortSignal } = {}): Promise<FetchedAttachment> {
    let current = this.checkedUrl(url, url, this.wording.url);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onCallerAbort = () => controller.abort();
    if (options.signal?.aborted) controller.abort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });

    const failure = (error: unknown): AttachmentFetchError => {
      if (error instanceof AttachmentFetchError) return error;
      if (timedOut) return new AttachmentFetchError('timeout', url, `no complete answer within ${this.timeoutMs} ms`);
      if (controller.signal.aborted) return new AttachmentFetchError('aborted', url, 'the fetch was cancelled');
      const refusal = refusalOf(error);
      if (refusal) return new AttachmentFetchError('refused', url, refusal.reason);
      return new AttachmentFetchError('network', url, networkReason(errorCodeOf(error)));
    };

    try {
      for (let redirects = 0; ; redirects++) {
        const response = await request(current, {
          method: 'GET',
          dispatcher: this.dispatcher,
          signal: controller.signal,
          headers: this.headers,
        });
        const location = headerValue(response.headers.location);
        if (REDIRECT_STATUSES.has(response.statusCode) && location !== null) {
          await discardBody(response.body);
          if (redirects >= this.maxRedirects) {
            throw new AttachmentFetchError('too_many_redirects', url, `more than ${this.maxRedirects} redirects`);
          }
          let next: URL;
          try {
            next = new URL(location, current);
          } catch {
            throw new AttachmentFetchError('invalid_url', url, 'redirected to an invalid URL');
          }
          current = this.checkedUrl(next.href, url, 'redirect target');
          continue;
        }
        if (response.statusCode < 200 || response.statusCode >= 300) {
          await discardBody(response.body);
          throw new AttachmentFetchError('http_status', url, `the server answered ${response.statusCode}`, response.statusCode);
        }
        const bytes = await this.readBody(response, url);
        return {
          url,
          finalUrl: current.href,
          contentType: headerValue(response.headers['content-type']),
          fileName: fileNameOfContentDisposition(headerValue(response.headers['content-disposition'])),
          bytes,
          redirects,
        };
      }
    } catch (error) {
      throw failure(error);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Closes the fetcher's connections. */
  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }

  /** https, no credentials, parsable; `what` names it in the refusal (never its text, which may carry tokens). */
  private checkedUrl(candidate: string, asked: string, what: string): URL {
    let parsed: URL;
    try {
      parsed = new URL(candidate);
    } catch {
      throw new AttachmentFetchError('invalid_url', asked, `the ${what} is not an absolute URL`);
    }
    if (parsed.protocol !== 'https:') throw new AttachmentFetchError('refused', asked, `the ${what} does not use https`);
    if (parsed.username !== '' || parsed.password !== '') {
      throw new AttachmentFetchError('refused', asked, `the ${what} contains credentials`);
    }
    return parsed;
  }

  private async readBody(response: Dispatcher.ResponseData, url: string): Promise<Buffer> {
    const tooLarge = () => new AttachmentFetchError('too_large', url, `the file is larger than ${formatBytes(this.maxBytes)}`);
    const declared = Number(headerValue(response.headers['content-length']));
    if (Number.isFinite(declared) && declared > this.maxBytes) {
      abandonBody(response.body);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      received += buffer.length;
      if (received > this.maxBytes) {
        abandonBody(response.body);
        throw tooLarge();
      }
      chunks.push(buffer);
    }
    return Buffer.concat(chunks, received);
  }
}
