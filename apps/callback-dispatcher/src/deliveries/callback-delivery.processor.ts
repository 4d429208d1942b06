import { Inject, Injectable, Logger } from '@nestjs/common';
import { DELIVERY_ID_FORMAT, type CallbackDeliveryJob, type DeliveryStatus } from '@waggle/contracts';
import { SpanKind, SpanStatusCode, type Attributes } from '@opentelemetry/api';
import { inSpan, spansRecorded, waggleMetrics } from '@waggle/telemetry';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { CallbackSender, type SentAttempt } from './callback-sender';
import { DeliveriesRepository, type DeliveryState } from './deliveries.repository';
import { decideAfterAttempt, deliveryOutcomeOf, loggableUrl, type AttemptDecision } from './delivery-policy';
import { DISPATCHER_SETTINGS, type DispatcherSettings } from './dispatcher-settings';
import { SigningKeys } from './signing-keys';

/** A re-run this much before the recorded next attempt is a crash's leftover, not the retry. */
const EARLY_RUN_TOLERANCE_MS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface DeliveryJobResult {
  delivery_id: string;
  status: DeliveryStatus;
  /** False when the job found the delivery finished or owned by a newer job, and sent nothing. */
  sent: boolean;
  attempt?: number;
}

/**
 * Moves the active job to the delayed set, trying again through a short Redis hiccup: a
 * job that cannot be postponed would otherwise end failed with its delivery still pending.
 */
async function delayJob(job: Job<CallbackDeliveryJob>, timestamp: number, token: string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await job.moveToDelayed(timestamp, token);
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** One span per attempt, a client span: its HTTP request carries the span's `traceparent`. */
export const DELIVERY_SPAN = 'callback delivery';

/**
 * What an attempt's span says from its start: which delivery, which attempt (1-based, the
 * delivery's count so far + 1) and the receiver's host (never its path or query, which may
 * carry a token). Its answer's status code and outcome are set when known.
 */
function attemptAttributes(data: CallbackDeliveryJob, attempt: number): Attributes {
  return {
    'waggle.callback.delivery_id': data.delivery_id,
    'waggle.callback.attempt': attempt,
    ...hostAttribute(data.url),
  };
}

/** `server.address`: the URL's host without brackets or port, or nothing when the URL cannot be read. */
function hostAttribute(url: string): Attributes {
  try {
    return { 'server.address': new URL(url).hostname.replace(/^\[(.*)\]$/, '$1') };
  } catch {
    return {};
  }
}

/**
 * One BullMQ job run = at most one attempt of a delivery.
 *
 * Retries are scheduled here, not by BullMQ's `attempts`/`backoff`: those live in the job
 * options the producer wrote when it enqueued (other services add callback jobs with only a
 * `jobId`, so `attempts` is 1 and a `backoffStrategy` would never be consulted), and a
 * worker cannot change them afterwards. So after a retryable failure the job moves itself
 * to the delayed set (`job.moveToDelayed(at, token)` + `DelayedError`, BullMQ's documented
 * way to postpone an active job without spending an attempt); the attempt count and the
 * next attempt time live on the delivery row, the source of truth a re-run reads. Final
 * outcomes throw `UnrecoverableError`, so the job ends in the failed set (the dead-letter
 * queue) whatever options a producer passed.
 */
@Injectable()
export class CallbackDeliveryProcessor {
  private readonly logger = new Logger('CallbackDelivery');

  constructor(
    @Inject(DISPATCHER_SETTINGS) private readonly settings: DispatcherSettings,
    private readonly deliveries: DeliveriesRepository,
    private readonly keys: SigningKeys,
    private readonly sender: CallbackSender,
  ) {}

  /** Runs inside the job's request context (the worker restores it). */
  async process(job: Job<CallbackDeliveryJob>, token: string | undefined): Promise<DeliveryJobResult> {
    const data = job.data;
    const jobId = job.id ?? data.delivery_id;
    // A malformed job would fail every statement it shares with other deliveries' rows.
    if (!DELIVERY_ID_FORMAT.test(data.delivery_id) || !UUID.test(data.workspace_id) || !UUID.test(data.owner?.id ?? '')) {
      throw new UnrecoverableError('not a callback delivery job (delivery_id, workspace_id or owner.id malformed)');
    }
    // Serialized once: these exact bytes are signed, sent and stored.
    const body = JSON.stringify(data.body);

    // Bookkeeping that fails (here and after the attempt) fails the job: an outage of the
    // database sends it to the delayed set without spending an attempt (QueueWorker), anything
    // else dead-letters it rather than retrying it for ever.
    const state: DeliveryState = await this.deliveries.open(data, jobId, body);
    // At-least-once jobs, exactly one outcome: a finished delivery is never sent again, and a
    // job superseded by a redelivery leaves it to the newer job.
    if (state.status !== 'pending' || state.jobId !== jobId) return { delivery_id: data.delivery_id, status: state.status, sent: false };
    if (state.nextAttemptAt && state.nextAttemptAt.getTime() > Date.now() + EARLY_RUN_TOLERANCE_MS) {
      // The previous run recorded its attempt but crashed before scheduling the next one.
      await delayJob(job, state.nextAttemptAt.getTime(), token);
      throw new DelayedError();
    }

    const attemptedAt = new Date();
    const { sent, decision } = await inSpan(
      DELIVERY_SPAN,
      spansRecorded() ? attemptAttributes(data, state.attemptCount + 1) : {},
      async (span) => {
        const sent = await this.sendSigned(data, body, attemptedAt);
        const decision = decideAfterAttempt(sent.result, state.jobAttemptCount + 1, this.settings.retry);
        if ('statusCode' in sent.result && sent.result.statusCode !== null)
          span.setAttribute('http.response.status_code', sent.result.statusCode);
        const outcome = deliveryOutcomeOf(decision.status);
        span.setAttribute('waggle.callback.outcome', outcome);
        // An attempt that did not deliver is a failed client call, whatever follows it.
        if (outcome !== 'delivered') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
        return { sent, decision };
      },
      { kind: SpanKind.CLIENT },
    );
    const nextAttemptAt = decision.retryInMs === null ? null : new Date(Date.now() + decision.retryInMs);
    const statusCode = 'statusCode' in sent.result ? sent.result.statusCode : null;
    const error = sent.result.kind === 'failed' ? sent.result.error : sent.result.kind === 'refused' ? sent.result.reason : null;

    const attempt = await this.deliveries.recordAttempt({
      deliveryId: data.delivery_id,
      jobId,
      attemptedAt,
      statusCode,
      latencyMs: sent.latencyMs,
      error,
      status: decision.status,
      nextAttemptAt,
    });
    this.logAttempt(data, attempt, decision, sent, statusCode, error, nextAttemptAt);
    this.recordAttempt(decision, attempt);

    switch (decision.status) {
      case 'succeeded':
        return { delivery_id: data.delivery_id, status: 'succeeded', sent: true, attempt };
      case 'pending':
        await delayJob(job, (nextAttemptAt as Date).getTime(), token);
        throw new DelayedError();
      case 'gone':
        throw new UnrecoverableError('receiver answered 410 Gone');
      case 'refused':
        throw new UnrecoverableError(`refused: ${error}`);
      default:
        throw new UnrecoverableError(`dead-lettered after attempt ${attempt}: ${error}`);
    }
  }

  /** Signs with the owner's secrets in force now and sends; a missing owner is an ordinary failed attempt. */
  private async sendSigned(data: CallbackDeliveryJob, body: string, attemptedAt: Date): Promise<SentAttempt> {
    let secrets: string[] | null;
    try {
      secrets = await this.keys.secretsFor(data.owner.kind, data.owner.id, attemptedAt);
    } catch (error) {
      return {
        result: { kind: 'failed', statusCode: null, error: `signing secrets unavailable: ${(error as Error).message}`, retryAfterMs: null },
        latencyMs: 0,
      };
    }
    // Its owner service rewrites the registry when it starts, so a later attempt may find it.
    if (!secrets)
      return { result: { kind: 'failed', statusCode: null, error: 'webhook owner not found', retryAfterMs: null }, latencyMs: 0 };
    return this.sender.send({ deliveryId: data.delivery_id, url: data.url, body, secrets, attemptedAt });
  }

  /** Every attempt by outcome; the attempts a delivery took, once, when it ends. */
  private recordAttempt(decision: AttemptDecision, attempt: number): void {
    const labels = { outcome: deliveryOutcomeOf(decision.status) };
    const instruments = waggleMetrics();
    instruments.callbackDeliveries.add(1, labels);
    if (labels.outcome !== 'retried') instruments.callbackAttempts.record(attempt, labels);
  }

  private logAttempt(
    data: CallbackDeliveryJob,
    attempt: number,
    decision: AttemptDecision,
    sent: SentAttempt,
    statusCode: number | null,
    error: string | null,
    nextAttemptAt: Date | null,
  ): void {
    // Never the secrets, the signature headers or the URL's query string.
    const line = {
      msg: 'callback attempt',
      delivery_id: data.delivery_id,
      request_id: data.request_id,
      attempt,
      status: decision.status,
      status_code: statusCode,
      latency_ms: sent.latencyMs,
      url: loggableUrl(data.url),
      ...(error !== null && { error }),
      ...(nextAttemptAt && { next_attempt_at: nextAttemptAt.toISOString() }),
      ...(decision.status === 'succeeded' && { run_to_delivery_ms: Date.now() - Date.parse(data.run_ended_at) }),
    };
    if (decision.status === 'succeeded') this.logger.log(line);
    else this.logger.warn(line);
  }
}
