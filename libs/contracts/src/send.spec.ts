import { WaggleException } from '@waggle/errors';
import { firstValueFrom, NEVER, of, toArray, concat, timer, map } from 'rxjs';
import { CatalogPatterns } from './catalog.patterns';
import { HealthPatterns } from './health.patterns';
import { InvocationPatterns, type PromptRunRequest } from './invocation.patterns';
import { DEFAULT_RPC_TIMEOUT_MS, SYNC_RUN_TIMEOUT_MS } from './rpc-contract';
import type { ReplyPattern } from './rpc-contracts';
import { send, type RpcTransport } from './send';

/** A workflow invoke's payload: a pattern whose contract declares a long time-out (SYNC_RUN_TIMEOUT_MS). */
const workflowRun = {
  workspace_id: 'w',
  request_id: 'r',
  deployment: 'd',
  variant: 'v',
  limits: { concurrency: 1, steps_per_run: 1, tool_calls_per_day: null },
};

const transportOf = (reply: ReturnType<RpcTransport['request']>): RpcTransport => ({ request: () => reply });

describe('send, a reply pattern', () => {
  it('resolves with the reply', async () => {
    const reply = { service: 'catalog', uptime_s: 3, ready: true };
    await expect(send(transportOf(of(reply)), HealthPatterns.catalog, {}, { timeoutMs: 100 })).resolves.toEqual(reply);
  });

  it('turns a time-out into upstream_request_failed with status 504', async () => {
    const error = await send(transportOf(NEVER), HealthPatterns.catalog, {}, { timeoutMs: 20 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WaggleException);
    expect(error).toMatchObject({ code: 'upstream_request_failed', status: 504 });
  });

  it("waits the contract's declared time-out unless the caller overrides it", async () => {
    const waits: number[] = [];
    const transport: RpcTransport = {
      request: () => NEVER,
      reply: (_pattern, _payload, _context, timeoutMs) => Promise.resolve(waits.push(timeoutMs)),
    };
    await send(transport, InvocationPatterns.invokeWorkflow, workflowRun);
    await send(transport, HealthPatterns.catalog, {});
    await send(transport, HealthPatterns.catalog, {}, { timeoutMs: 1_000 });
    // An app's own default (the gateway's NATS_REQUEST_TIMEOUT_MS) for patterns that declare none.
    await send({ ...transport, defaultTimeoutMs: 2_500 }, HealthPatterns.catalog, {});
    await send({ ...transport, defaultTimeoutMs: 2_500 }, InvocationPatterns.invokeWorkflow, workflowRun);
    expect(waits).toEqual([SYNC_RUN_TIMEOUT_MS, DEFAULT_RPC_TIMEOUT_MS, 1_000, 2_500, SYNC_RUN_TIMEOUT_MS]);
  });

  it('refuses a pattern outside the contract map', () => {
    expect(() => send(transportOf(NEVER), 'made.up.pattern' as ReplyPattern, {} as never)).toThrow(
      'made.up.pattern is not in the RPC contract map',
    );
  });
});

describe('send, a stream pattern', () => {
  it('applies the time-out to each gap between values, not to the whole stream', async () => {
    const slowButSteady = concat(...[1, 2, 3].map((n) => timer(15).pipe(map(() => n))));
    const run = { workspace_id: 'w', request_id: 'r', deployment: 'd', variant: 'v' } satisfies PromptRunRequest;
    const values = await firstValueFrom(
      send(transportOf(slowButSteady), InvocationPatterns.streamPrompt, run, { timeoutMs: 40 }).pipe(toArray()),
    );
    expect(values).toEqual([1, 2, 3]);
  });
});

describe('send, made while handling a request that carries a deadline', () => {
  const now = 1_700_000_000_000;
  beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(now));
  afterEach(() => jest.restoreAllMocks());

  /** A transport whose caller's request waits until `callerDeadline`, recording each reply call's wait. */
  function handlingRequestUntil(callerDeadline: number) {
    const waits: number[] = [];
    const transport: RpcTransport = {
      request: () => NEVER,
      reply: (_pattern, _payload, _context, timeoutMs) => Promise.resolve(waits.push(timeoutMs)),
      callerDeadline: () => callerDeadline,
    };
    return { waits, transport };
  }

  it("waits no longer than what is left of the caller's deadline, whatever the contract or the caller says", async () => {
    const { waits, transport } = handlingRequestUntil(now + 1_500);
    await send(transport, InvocationPatterns.invokeWorkflow, workflowRun);
    await send(transport, CatalogPatterns.getModelRoute, { model_id: 'm' });
    await send(transport, HealthPatterns.catalog, {}, { timeoutMs: 60_000 });
    expect(waits).toEqual([1_500, 1_500, 1_500]);
  });

  it("keeps the contract's time-out when the caller waits longer than that", async () => {
    const { waits, transport } = handlingRequestUntil(now + 3_600_000);
    await send(transport, InvocationPatterns.invokeWorkflow, workflowRun);
    await send(transport, CatalogPatterns.getModelRoute, { model_id: 'm' });
    expect(waits).toEqual([SYNC_RUN_TIMEOUT_MS, 5_000]);
  });

  it("sends nothing once the caller's deadline has passed: 504 at once", async () => {
    const { waits, transport } = handlingRequestUntil(now - 1);
    await expect(send(transport, CatalogPatterns.getModelRoute, { model_id: 'm' })).rejects.toMatchObject({
      code: 'upstream_request_failed',
      status: 504,
    });
    expect(waits).toEqual([]);
  });

  it("ends a stream that outlasts the caller's deadline as a time-out, whatever its gaps", async () => {
    const streamRun = { workspace_id: 'w', request_id: 'r', deployment: 'd', variant: 'v' } satisfies PromptRunRequest;
    const values: unknown[] = [];
    const transport: RpcTransport = { request: () => concat(of(1), NEVER), callerDeadline: () => now + 20 };
    const error = await firstValueFrom(
      send(transport, InvocationPatterns.streamPrompt, streamRun).pipe(
        map((value) => values.push(value)),
        toArray(),
      ),
    ).catch((caught: unknown) => caught);
    expect(values).toEqual([1]);
    expect(error).toMatchObject({ code: 'upstream_request_failed', status: 504 });
  });
});
