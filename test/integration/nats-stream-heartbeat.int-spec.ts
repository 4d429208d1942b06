import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RpcHeaders } from '@waggle/contracts';
import {
  BaseEnv,
  GracefulNatsServer,
  loadConfig,
  natsConnectionOptions,
  NatsRpcClient,
  serveRpcHandlers,
  UncontractedRpcHandler,
} from '@waggle/platform';
import { connect, type NatsConnection } from 'nats';
import { concat, defer, firstValueFrom, from, lastValueFrom, of, toArray, type Observable } from 'rxjs';
import { WaggleException } from '@waggle/errors';

/**
 * Streamed replies and their heartbeats (STREAM_HEARTBEAT): a stream whose responder is alive
 * but silent (a model slow to its first token) lives as long as it takes, and one whose
 * responder died, before or after its first packet, ends as a 504 instead of hanging.
 */

/** Held shut by the test: the stream's value comes exactly when the test says so, never on a timer. */
let release: () => void = () => undefined;
let held = new Promise<void>((resolve) => (release = resolve));

@Controller()
class SlowStreamController {
  @UncontractedRpcHandler('test.heartbeat.slow', { kind: 'stream' })
  slow(): Observable<string> {
    return concat(
      defer(() => from(held.then(() => 'first token'))),
      of('done'),
    );
  }
}

@Module({ controllers: [SlowStreamController] })
class SlowStreamModule {}

/** Short intervals, so the dead responders' 504s come in milliseconds; the production ones are in STREAM_HEARTBEAT. */
const HEARTBEAT = { intervalMs: 50, missedLimit: 4 };
/**
 * For the living stream: heartbeats every 100 ms (the fastest a service sends them: it raises
 * the 50 ms above to that, which left the old test a 200 ms silence limit for 100 ms beats),
 * and a silence limit of 3 s, far above any pause this process (client and service both) takes
 * on a loaded machine, so only a stream that really stopped beating could end. The test counts
 * heartbeats, never time.
 */
const GENEROUS_HEARTBEAT = { intervalMs: 100, missedLimit: 30 };

describe('NATS stream heartbeats', () => {
  const env = loadConfig(BaseEnv);
  let client: NatsRpcClient;
  let patient: NatsRpcClient;
  let raw: NatsConnection;
  let service: INestMicroservice;

  beforeAll(async () => {
    client = new NatsRpcClient(env, 'heartbeat-test', { streamHeartbeat: HEARTBEAT });
    await client.connect();
    patient = new NatsRpcClient(env, 'heartbeat-test-patient', { streamHeartbeat: GENEROUS_HEARTBEAT });
    await patient.connect();
    raw = await connect(natsConnectionOptions(env));
    const server = new GracefulNatsServer({ ...natsConnectionOptions(env), queue: 'test-heartbeat' }, 1_000);
    service = await NestFactory.createMicroservice(SlowStreamModule, { strategy: server, logger: false });
    serveRpcHandlers(service, server);
    await service.listen();
  });

  afterAll(async () => {
    release();
    await service.close();
    await client.close();
    await patient.close();
    await raw.close();
  });

  it('keeps a silent but living stream open for several times its silence limit, then delivers it whole', async () => {
    held = new Promise<void>((resolve) => (release = resolve));
    // Every heartbeat the service sends, whatever inbox it goes to.
    const heartbeats = raw.subscribe('_INBOX.>');
    await raw.flush();
    const result = lastValueFrom(patient.request('test.heartbeat.slow', {}, {}).pipe(toArray()));
    let seen = 0;
    for await (const message of heartbeats) {
      if (message.headers?.get(RpcHeaders.heartbeat)) seen += 1;
      // Two and a half times the silence the client allows, with nothing but heartbeats: only
      // their coming kept it open.
      if (seen === GENEROUS_HEARTBEAT.missedLimit * 2.5) break;
    }
    heartbeats.unsubscribe();
    release();
    await expect(result).resolves.toEqual(['first token', 'done']);
  });

  it('ends a stream whose responder took the request and never answered as a 504', async () => {
    // A responder that dies after taking the request: it reads the message and sends nothing.
    const taken = raw.subscribe('test.heartbeat.taken', { max: 1 });
    await raw.flush();
    const stream = firstValueFrom(client.request('test.heartbeat.taken', {}, {}));
    for await (const message of taken) expect(message.headers?.get(RpcHeaders.heartbeat)).toBe(String(HEARTBEAT.intervalMs));
    await expect(stream).rejects.toMatchObject({ code: 'upstream_request_failed', status: 504 });
  });

  it('ends a stream whose responder fell silent after its first packet as a 504, keeping what came', async () => {
    const taken = raw.subscribe('test.heartbeat.midway', { max: 1 });
    await raw.flush();
    const received: unknown[] = [];
    const ended = new Promise<unknown>((resolve) =>
      client
        .request('test.heartbeat.midway', {}, {})
        .subscribe({ next: (value) => received.push(value), error: resolve, complete: () => resolve('completed without an error') }),
    );
    for await (const message of taken) {
      const { id } = JSON.parse(new TextDecoder().decode(message.data)) as { id: string };
      message.respond(new TextEncoder().encode(JSON.stringify({ id, response: 'partial', isDisposed: false })));
    }
    const error = await ended;
    expect(error).toBeInstanceOf(WaggleException);
    expect(error).toMatchObject({ code: 'upstream_request_failed', status: 504 });
    expect(received).toEqual(['partial']);
  });
});
