import { injectTraceContext } from '@waggle/telemetry';
import { refusalOf, signCallback, type CallbackUrlPolicy } from '@waggle/webhooks';
import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import { classifyStatus, parseRetryAfter, type AttemptResult } from './delivery-policy';

export const CALLBACK_USER_AGENT = 'Waggle-Webhooks/1';
/** At most this much of a receiver's answer is read (and discarded), so a keep-alive socket can be reused. */
const MAX_RESPONSE_BYTES = 4_096;
const MAX_ERROR_LENGTH = 500;

export interface CallbackRequest {
  deliveryId: string;
  url: string;
  /** The exact bytes sent and signed. */
  body: string;
  /** Every secret in force, the current one first. */
  secrets: readonly string[];
  /** This attempt's time: `webhook-timestamp`. */
  attemptedAt: Date;
}

export interface SentAttempt {
  result: AttemptResult;
  latencyMs: number;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Sends one signed attempt through the guarded dispatcher, with the active trace context, and
 * never throws: every way an attempt can go is an AttemptResult. `undici.request` follows no
 * redirects, so a 3xx is an answer like any other non-2xx (and cannot lead the request to an
 * unchecked host).
 */
export class CallbackSender {
  constructor(
    private readonly policy: CallbackUrlPolicy,
    private readonly dispatcher: Dispatcher,
    private readonly timeoutMs: number,
  ) {}

  async send(attempt: CallbackRequest): Promise<SentAttempt> {
    const refusedUrl = this.policy.check(attempt.url);
    if (refusedUrl) return { result: { kind: 'refused', reason: refusedUrl }, latencyMs: 0 };

    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': CALLBACK_USER_AGENT,
      ...signCallback({
        id: attempt.deliveryId,
        timestamp: Math.floor(attempt.attemptedAt.getTime() / 1000),
        body: attempt.body,
        secrets: attempt.secrets,
      }),
    };
    // The run's trace, from the attempt's span (or the job's, when none is recorded), so the
    // receiver can continue it. Outside both signatures, which cover the id, time and body only.
    injectTraceContext(headers);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let statusCode: number | null = null;
    try {
      // The signal bounds headers and body together; undici's own timeouts bound each phase.
      const signal = AbortSignal.timeout(this.timeoutMs);
      const response = await request(attempt.url, {
        method: 'POST',
        headers,
        body: attempt.body,
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal,
      });
      statusCode = response.statusCode;
      await response.body.dump({ limit: MAX_RESPONSE_BYTES, signal });
      return { result: classifyStatus(response.statusCode, parseRetryAfter(response.headers['retry-after'])), latencyMs: elapsed() };
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal) return { result: { kind: 'refused', reason: refusal.reason }, latencyMs: elapsed() };
      return { result: { kind: 'failed', statusCode, error: this.describe(error), retryAfterMs: null }, latencyMs: elapsed() };
    }
  }

  private describe(error: unknown): string {
    const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string };
    if (name === 'TimeoutError' || (code && TIMEOUT_CODES.has(code))) return `no answer within ${this.timeoutMs} ms`;
    const text = message || String(error);
    return (code && !text.includes(code) ? `${code}: ${text}` : text).slice(0, MAX_ERROR_LENGTH);
  }
}
