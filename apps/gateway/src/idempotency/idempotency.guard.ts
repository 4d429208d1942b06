import { Inject, Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { ErrorCode } from '@waggle/errors';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, assertStorableInput, canonicalJson, NatsRpcClient, REDIS_CLIENT, requestContext } from '@waggle/platform';
import { RunEventLog } from '@waggle/runs';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { createHash } from 'node:crypto';
import type { GatewayEnv } from '../config/gateway.env';
import type { LocalizedRequest } from '../errors/http-exception.filter';
import { routeEncodingOf, SSE_MAX_DURATION_MS } from '../streaming/sse-relay';
import { REQUEST_ID_HEADER } from '../openai/openai-edge';
import { RunEventReplay } from '../requests/run-event-replay';
import { attachIdempotencyClaim, IdempotencyKeyRecord, type KeptAnswer } from './idempotency-records';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** decisions: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
/** Past the longest a run may keep its caller, a claim whose gateway died frees the key. */
const LEASE_MARGIN_MS = 60_000;

/** A request that may carry an Idempotency-Key: its workspace comes from the API key or the webhook's owner. */
type IdempotentRequest = LocalizedRequest & { auth?: { workspace_id: string }; webhookTarget?: { workspace_id: string } };

/**
 * A repeat's answer, thrown by the guard so that neither the meter nor the handler runs; the
 * exception filter writes it (`answer`).
 */
export class ReplayedAnswer {
  constructor(
    private readonly kept: KeptAnswer,
    /** A stream's events, replayed from the run's event log. */
    private readonly replayStream: (response: Response) => Promise<void>,
    /** The first request's, whose run this answer is. */
    private readonly requestId: string,
  ) {}

  async answer(response: Response): Promise<void> {
    response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    // Where answers name their run in a header (the OpenAI-compatible surface's x-request-id), it is the first request's run.
    if (response.hasHeader(REQUEST_ID_HEADER)) response.setHeader(REQUEST_ID_HEADER, this.requestId);
    if (this.kept.kind === 'json') {
      response.status(this.kept.status).type('application/json').send(this.kept.body);
      return;
    }
    await this.replayStream(response);
  }
}

/** The SHA-256 of what the request asks: its route and its parsed body, key order ignored. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body ?? null, 'code-unit')}`)
    .digest('hex');
}

/**
 * Answers refused before a run started are not kept (decisions), so a corrected retry may use
 * the key: every 4xx but a run's cancellation, and a 503 (the run was not accepted).
 */
export function refusedBeforeRun(status: number, body: unknown): boolean {
  if (status === 503) return true;
  if (status < 400 || status >= 500) return false;
  return (body as { error_code?: ErrorCode } | null)?.error_code !== 'run_cancelled';
}

/**
 * `Idempotency-Key` on a request that starts a run (decisions, "Beyond the contract"). Runs
 * after authentication (the key is the workspace's) and before the meter (a repeat is not
 * metered). The first request claims the key in Redis in one round trip (SET NX) and runs; its
 * answer is kept 24 h before it is sent. A repeat with the same request gets that answer again
 * with `Idempotent-Replayed: true`; while the first still runs, 409 `idempotency_key_in_use`;
 * with another request, 422 `idempotency_key_reused`. Without the header nothing is done.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly logger = new Logger(IdempotencyGuard.name);
  private readonly leaseMs: number;

  private readonly events: RunEventReplay;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(APP_ENV) env: GatewayEnv,
    rpc: NatsRpcClient,
    log: RunEventLog,
  ) {
    this.leaseMs = Math.max(env.SYNC_INVOKE_TIMEOUT_MS, SSE_MAX_DURATION_MS) + LEASE_MARGIN_MS;
    this.events = new RunEventReplay(rpc, log);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<IdempotentRequest>();
    const key = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (key === undefined) return true;
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_FORMAT.test(key)) {
      throw new WaggleException('validation_error', {
        detail: 'idempotency_key_invalid',
        details: [{ field: 'Idempotency-Key', messages: ['must be 1 to 255 visible ASCII characters'] }],
      });
    }
    const workspaceId = request.auth?.workspace_id ?? request.webhookTarget?.workspace_id;
    if (workspaceId === undefined) throw new Error('IdempotencyGuard runs after the request is authenticated');
    // Guards run before pipes: input nested too deep to hash (or store) is refused here, as the pipe would.
    assertStorableInput(request.body);
    const fingerprint = requestFingerprint(request.method, request.path, request.body);
    const requestId = requestContext.get()?.requestId ?? '';
    const record = new IdempotencyKeyRecord(this.redis, workspaceId, key, fingerprint, requestId);
    const state = await this.claim(record);
    if (state.state === 'claimed') {
      this.keepAnswer(request, http.getResponse<Response>(), record);
      return true;
    }
    if (state.fingerprint !== fingerprint) throw new WaggleException('idempotency_key_reused');
    if (state.state === 'running') throw new WaggleException('idempotency_key_in_use', { extra: { request_id: state.requestId } });
    throw new ReplayedAnswer(
      state.answer,
      (response) => this.events.replay(state.requestId, workspaceId, 0, request, response, routeEncodingOf(request, state.requestId)),
      state.requestId,
    );
  }

  private async claim(record: IdempotencyKeyRecord) {
    try {
      return await record.claim(this.leaseMs);
    } catch (error) {
      // Running without the claim could start a run twice: refused like the meter when Redis is away.
      this.logger.error({ err: error }, 'the idempotency store is unavailable');
      throw new WaggleException('upstream_request_failed', { status: 503, detail: 'idempotency_unavailable' });
    }
  }

  /**
   * Keeps the answer (or frees the key) before it leaves, so a repeat sent on receipt already
   * finds it: a JSON answer as it is sent, a stream (its events are in the run's event log) when
   * the relay ends it, before `[DONE]`, or when its client leaves.
   */
  private keepAnswer(request: IdempotentRequest, response: Response, record: IdempotencyKeyRecord): void {
    let streamKept: Promise<void> | undefined;
    attachIdempotencyClaim(request, {
      streamEnded: () =>
        (streamKept ??= record
          .keep({ kind: 'stream', status: 200 })
          .catch((error: unknown) =>
            this.logger.warn({ err: error }, 'an idempotent stream could not be kept; a repeat runs again once its claim lapses'),
          )),
    });
    const send = response.json.bind(response);
    response.json = (body: unknown) => {
      response.json = send;
      const status = response.statusCode;
      const settled = refusedBeforeRun(status, body) ? record.release() : record.keep({ kind: 'json', status, body: JSON.stringify(body) });
      void settled
        .catch((error: unknown) =>
          this.logger.warn({ err: error }, 'an idempotent answer could not be kept; a repeat runs again once its claim lapses'),
        )
        .finally(() => send(body));
      return response;
    };
  }
}
