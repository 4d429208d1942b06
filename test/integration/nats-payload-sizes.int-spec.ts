import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CLAIM_BUCKETS, RpcHeaders } from '@waggle/contracts';
import {
  BaseEnv,
  GracefulNatsServer,
  loadConfig,
  natsConnectionOptions,
  NatsRpcClient,
  serveRpcHandlers,
  UncontractedRpcHandler,
} from '@waggle/platform';
import { expectEventually } from '@waggle/testing';
import { headers as natsHeaders } from 'nats';
import { randomUUID } from 'node:crypto';
import { from, lastValueFrom, of, toArray, type Observable } from 'rxjs';

function connectionOf(client: NatsRpcClient) {
  const connection = client.connection();
  if (!connection) throw new Error('the test client is not connected');
  return connection;
}

/** Larger than NATS's default max_payload (1 MiB), which the test server keeps. */
const LARGE = 'x'.repeat(3 * 1024 * 1024) + 'é-end';

@Controller()
class SizesController {
  /** Answers with exactly what it was sent. */
  @UncontractedRpcHandler('test.sizes.direct-echo')
  directEcho(payload: unknown): unknown {
    return payload;
  }

  @UncontractedRpcHandler('test.sizes.echo')
  echo(payload: { text: string }): { text: string; length: number } {
    return { text: payload.text, length: payload.text.length };
  }

  @UncontractedRpcHandler('test.sizes.stream', { kind: 'stream' })
  stream(payload: { text: string }): Observable<{ seq: number; text: string }> {
    return from([
      { seq: 1, text: 'small' },
      { seq: 2, text: payload.text },
      { seq: 3, text: 'small again' },
    ]);
  }

  @UncontractedRpcHandler('test.sizes.unserializable', { kind: 'stream' })
  unserializable(): Observable<unknown> {
    return of({ seq: 1 }, { seq: 2, count: BigInt(1) });
  }
}

@Module({ controllers: [SizesController] })
class SizesModule {}

/**
 * Requests, replies and stream events of any size cross NATS, whose messages carry at most the
 * server's max_payload: what does not fit travels through the claim-check bucket, is read by
 * its receiver and deleted. Whatever cannot be sent is answered as an error, never a crash.
 */
describe('payloads larger than NATS max_payload', () => {
  const env = loadConfig(BaseEnv);
  const client = new NatsRpcClient(env, 'payload-sizes-test');
  let service: INestMicroservice;
  let server: GracefulNatsServer;
  const startedAt = new Date();

  beforeAll(async () => {
    await client.connect();
    server = new GracefulNatsServer({ ...natsConnectionOptions(env), queue: 'test-sizes' }, 5_000);
    service = await NestFactory.createMicroservice(SizesModule, { strategy: server, logger: false });
    serveRpcHandlers(service, server);
    await service.listen();
  });

  afterAll(async () => {
    await service.close();
    await client.close();
  });

  it('knows the server limit the payloads are measured against', () => {
    expect(client.connection()?.info?.max_payload).toBe(1024 * 1024);
    expect(client.claims.exceeds(new TextEncoder().encode(LARGE))).toBe(true);
  });

  it('carries a large request and its large reply, read as one reply', async () => {
    const reply = await client.reply('test.sizes.direct-echo', { text: LARGE }, {}, 30_000);
    expect(reply).toEqual({ text: LARGE });
  });

  it('carries a large request and its large reply, read as a stream', async () => {
    const reply = await lastValueFrom(client.request('test.sizes.echo', { text: LARGE }, {}));
    expect(reply).toEqual({ text: LARGE, length: LARGE.length });
  });

  it('keeps a stream in order when one event in the middle is large', async () => {
    const events = await lastValueFrom(client.request('test.sizes.stream', { text: LARGE }, {}).pipe(toArray()));
    expect(events).toEqual([
      { seq: 1, text: 'small' },
      { seq: 2, text: LARGE },
      { seq: 3, text: 'small again' },
    ]);
  });

  it('removes the stored payload of a large request nobody answered', async () => {
    await expect(client.reply('test.sizes.nobody-listens', { text: LARGE }, {}, 10_000)).rejects.toMatchObject({
      code: 'upstream_request_failed',
      status: 502,
    });
  });

  it('leaves no stored payload behind once the receivers have read them', async () => {
    const store = await connectionOf(client).jetstream().views.os(CLAIM_BUCKETS.rpc.name);
    await expectEventually(async () => {
      const left = (await store.list()).filter((info) => new Date(info.mtime) >= startedAt);
      expect(left).toEqual([]);
    });
  });

  it('answers a request whose stored payload is gone with upstream_request_failed, at once', async () => {
    const connection = connectionOf(client);
    const headers = natsHeaders();
    headers.set(RpcHeaders.claim, randomUUID());
    const reply = await connection.request('test.sizes.direct-echo', new Uint8Array(0), { headers, timeout: 10_000 });
    expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({
      err: { error_code: 'upstream_request_failed', status: 502 },
      isDisposed: true,
    });
  });

  it('ends a stream whose event cannot be serialized with an error, and keeps serving', async () => {
    const events: unknown[] = [];
    const failure = await new Promise((resolve) => {
      client.request('test.sizes.unserializable', {}, {}).subscribe({
        next: (event) => events.push(event),
        error: resolve,
        complete: () => resolve('completed'),
      });
    });
    expect(events).toEqual([{ seq: 1 }]);
    expect(failure).toMatchObject({ code: 'internal_server_error' });
    await expect(client.reply('test.sizes.direct-echo', { text: 'still here' }, {}, 10_000)).resolves.toEqual({ text: 'still here' });
  });
});
