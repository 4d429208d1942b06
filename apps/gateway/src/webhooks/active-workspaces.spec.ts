import type { WorkspaceSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { NatsRpcClient } from '@waggle/platform';
import { Observable, of, throwError } from 'rxjs';
import { API_KEY_CACHE_TTL_MS } from '../auth/api-key-authenticator';
import { ActiveWorkspaces } from './active-workspaces';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const summary = { id: WORKSPACE, name: 'w', plan: 'lite', language: 'es' } as WorkspaceSummary;

/** The catalog's answers, one per call, in order. */
function catalogAnswering(...answers: Array<WorkspaceSummary | Error>) {
  const calls: unknown[] = [];
  const rpc = {
    request: (_pattern: string, payload: unknown): Observable<unknown> => {
      calls.push(payload);
      const answer = answers.shift();
      return answer instanceof Error ? throwError(() => answer) : of(answer);
    },
  } as unknown as NatsRpcClient;
  return { rpc, calls };
}

describe('ActiveWorkspaces', () => {
  afterEach(() => jest.useRealTimers());

  it('asks the catalog once per 4 s per workspace', async () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
    const { rpc, calls } = catalogAnswering(summary, summary);
    const workspaces = new ActiveWorkspaces(rpc);
    expect(await workspaces.get(WORKSPACE)).toEqual(summary);
    expect(await workspaces.get(WORKSPACE)).toEqual(summary);
    expect(calls).toHaveLength(1);
    jest.setSystemTime(4_001);
    await workspaces.get(WORKSPACE);
    expect(calls).toHaveLength(2);
  });

  it('sees a deletion no later than 4 s after its last answer, like API keys', async () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
    const { rpc, calls } = catalogAnswering(summary, new WaggleException('not_found', { detail: 'workspace_not_found' }));
    const workspaces = new ActiveWorkspaces(rpc);
    expect(await workspaces.get(WORKSPACE)).toEqual(summary);
    // Deleted right after that answer: the cached one still serves just inside the 4 s...
    jest.setSystemTime(API_KEY_CACHE_TTL_MS - 1);
    expect(await workspaces.get(WORKSPACE)).toEqual(summary);
    expect(calls).toHaveLength(1);
    // ...and at 4 s the catalog is asked again, so the webhook is refused.
    jest.setSystemTime(API_KEY_CACHE_TTL_MS);
    expect(await workspaces.get(WORKSPACE)).toBeNull();
    expect(calls).toHaveLength(2);
    expect(API_KEY_CACHE_TTL_MS).toBe(4_000);
  });

  it('answers null for a deleted workspace', async () => {
    const { rpc } = catalogAnswering(new WaggleException('not_found', { detail: 'workspace_not_found' }));
    expect(await new ActiveWorkspaces(rpc).get(WORKSPACE)).toBeNull();
  });

  it('keeps using the last answer while the catalog cannot be reached, for a while only', async () => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
    const unreachable = new WaggleException('upstream_request_failed', { status: 504 });
    const { rpc } = catalogAnswering(summary, unreachable, unreachable);
    const workspaces = new ActiveWorkspaces(rpc);
    await workspaces.get(WORKSPACE);
    jest.setSystemTime(60_000);
    expect(await workspaces.get(WORKSPACE)).toEqual(summary);
    jest.setSystemTime(11 * 60_000);
    await expect(workspaces.get(WORKSPACE)).rejects.toBe(unreachable);
  });

  it('fails when the catalog cannot be reached and nothing is known', async () => {
    const unreachable = new WaggleException('upstream_request_failed', { status: 504 });
    const { rpc } = catalogAnswering(unreachable);
    await expect(new ActiveWorkspaces(rpc).get(WORKSPACE)).rejects.toBe(unreachable);
  });
});
