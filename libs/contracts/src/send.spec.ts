import { WaggleException } from '@waggle/errors';
import { firstValueFrom, NEVER, of, toArray, concat, timer, map } from 'rxjs';
import { HealthPatterns } from './health.patterns';
import { InvocationPatterns, type PromptRunRequest } from './invocation.patterns';
import { sendRpc, streamRpc, type RpcTransport } from './send';

const transportOf = (reply: ReturnType<RpcTransport['request']>): RpcTransport => ({ request: () => reply });

describe('sendRpc', () => {
  it('resolves with the reply', async () => {
    const reply = { service: 'catalog', uptime_s: 3, ready: true };
    await expect(sendRpc(transportOf(of(reply)), HealthPatterns.catalog, {}, { timeoutMs: 100 })).resolves.toEqual(reply);
  });

  it('turns a time-out into upstream_request_failed with status 504', async () => {
    const error = await sendRpc(transportOf(NEVER), HealthPatterns.catalog, {}, { timeoutMs: 20 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WaggleException);
    expect(error).toMatchObject({ code: 'upstream_request_failed', status: 504 });
  });
});

describe('streamRpc', () => {
  it('applies the time-out to each gap between values, not to the whole stream', async () => {
    const slowButSteady = concat(...[1, 2, 3].map((n) => timer(15).pipe(map(() => n))));
    const run = { workspace_id: 'w', request_id: 'r', deployment: 'd', variant: 'v' } satisfies PromptRunRequest;
    const values = await firstValueFrom(
      streamRpc(transportOf(slowButSteady), InvocationPatterns.streamPrompt, run, { timeoutMs: 40 }).pipe(toArray()),
    );
    expect(values).toEqual([1, 2, 3]);
  });
});
