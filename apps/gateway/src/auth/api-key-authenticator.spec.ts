import type { RpcCallContext, RpcTransport } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { NatsRpcClient } from '@waggle/platform';
import { Observable, of, throwError } from 'rxjs';
import { API_KEY_CACHE_TTL_MS, ApiKeyAuthenticator } from './api-key-authenticator';

const KEY = `wgl_${'A1b2C3d4E5'.repeat(4)}`;

class RecordingTransport implements RpcTransport {
  calls: Array<{ pattern: string; payload: unknown }> = [];
  constructor(private readonly answer: () => Observable<unknown>) {}
  request(pattern: string, payload: unknown, _context: RpcCallContext): Observable<unknown> {
    this.calls.push({ pattern, payload });
    return this.answer();
  }
}

const authenticatorWith = (transport: RecordingTransport) => new ApiKeyAuthenticator(transport as unknown as NatsRpcClient);

describe('ApiKeyAuthenticator', () => {
  afterEach(() => jest.useRealTimers());

  it('refuses a missing header as unauthorized and malformed ones as invalid_api_key, asking nobody', async () => {
    const transport = new RecordingTransport(() => of({}));
    const authenticator = authenticatorWith(transport);
    await expect(authenticator.authenticate(undefined)).rejects.toMatchObject({ code: 'unauthorized' });
    for (const header of ['Basic abc', 'Bearer', 'Bearer ', `Bearer ${KEY}x`, `Token ${KEY}`, "Bearer wgl_' OR 1=1"]) {
      await expect(authenticator.authenticate(header)).rejects.toMatchObject({ code: 'invalid_api_key' });
    }
    expect(transport.calls).toHaveLength(0);
  });

  it('sends only the prefix and the SHA-256, never the key', async () => {
    const transport = new RecordingTransport(() => of({ workspace_id: 'w' }));
    await authenticatorWith(transport).authenticate(`Bearer ${KEY}`);
    expect(transport.calls[0].payload).toEqual({ prefix: KEY.slice(0, 12), key_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(transport.calls)).not.toContain(KEY);
  });

  it('answers from its cache until the TTL ends, then asks again', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-21T10:00:00Z') });
    const transport = new RecordingTransport(() => of({ workspace_id: 'w' }));
    const authenticator = authenticatorWith(transport);
    await authenticator.authenticate(`Bearer ${KEY}`);
    await authenticator.authenticate(`bearer ${KEY}`);
    expect(transport.calls).toHaveLength(1);
    jest.setSystemTime(Date.now() + API_KEY_CACHE_TTL_MS + 1);
    await authenticator.authenticate(`Bearer ${KEY}`);
    expect(transport.calls).toHaveLength(2);
    // decisions.md: a revoked key is refused within 5 s everywhere; this cache is that bound.
    expect(API_KEY_CACHE_TTL_MS).toBeLessThan(5_000);
  });

  it('does not cache a refusal', async () => {
    const transport = new RecordingTransport(() => throwError(() => new WaggleException('invalid_api_key')));
    const authenticator = authenticatorWith(transport);
    await expect(authenticator.authenticate(`Bearer ${KEY}`)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(authenticator.authenticate(`Bearer ${KEY}`)).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(transport.calls).toHaveLength(2);
  });
});
