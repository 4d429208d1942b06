import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  BaseEnv,
  GracefulNatsServer,
  type AdmissionLimits,
  loadConfig,
  natsConnectionOptions,
  NatsRpcClient,
  serveRpcHandlers,
  UncontractedRpcHandler,
} from '@waggle/platform';
import { expectEventually } from '@waggle/testing';
import { firstValueFrom, NEVER, toArray, type Observable } from 'rxjs';

/** Held shut by the test: the handler's work ends exactly when the test says so, never on a timer. */
class Gate {
  readonly opened: Promise<void>;
  private release!: () => void;

  constructor() {
    this.opened = new Promise((resolve) => (this.release = resolve));
  }

  open(): void {
    this.release();
  }
}

let gate = new Gate();

@Controller()
class GatedController {
  @UncontractedRpcHandler('test.graceful.gated')
  async gated(): Promise<{ finished: boolean }> {
    await gate.opened;
    return { finished: true };
  }
}

@Controller()
class StreamingController {
  /** A stream that never ends: it is only ever refused here. */
  @UncontractedRpcHandler('test.overload.stream', { kind: 'stream' })
  stream(): Observable<never> {
    return NEVER;
  }
}

@Module({ controllers: [GatedController, StreamingController] })
class GatedModule {}

describe('GracefulNatsServer: shutdown and overload', () => {
  const env = loadConfig(BaseEnv);
  let client: NatsRpcClient;
  let service: INestMicroservice | undefined;

  beforeEach(async () => {
    gate = new Gate();
    client = new NatsRpcClient(env, 'graceful-test');
    await client.connect();
  });

  afterEach(async () => {
    // Whatever a test left held is let go, so no handler outlives it.
    gate.open();
    await stopService();
    await client.close();
  });

  /** Closes the running service once; afterEach closes whatever a test left running. */
  function stopService(): Promise<void> {
    const running = service;
    service = undefined;
    return running ? running.close() : Promise.resolve();
  }

  async function startService(queue: string, graceMs: number, admission?: AdmissionLimits): Promise<GracefulNatsServer> {
    const server = new GracefulNatsServer({ ...natsConnectionOptions(env), queue }, graceMs, undefined, admission);
    const microservice = await NestFactory.createMicroservice(GatedModule, { strategy: server, logger: false });
    serveRpcHandlers(microservice, server);
    await microservice.listen();
    service = microservice;
    return server;
  }

  const gatedCall = (timeoutMs = 30_000) => client.reply('test.graceful.gated', {}, {}, timeoutMs);

  it('answers every request already received, then stops taking new ones', async () => {
    const server = await startService('test-graceful', 30_000);
    const events: string[] = [];
    const inflight = [gatedCall(), gatedCall(), gatedCall()].map((call) =>
      call.then((answer) => {
        events.push('answered');
        return answer;
      }),
    );
    await expectEventually(() => expect(server.inflightCount).toBe(3), { timeoutMs: 10_000, intervalMs: 10 });

    const closing = stopService().then(() => events.push('closed'));
    // Intake stops while the three are still held: a new request finds no subscriber (502 at
    // once, not a 504 time-out), and the connection stays open for the replies still owed.
    await expectEventually(() => expect(gatedCall(5_000)).rejects.toMatchObject({ code: 'upstream_request_failed', status: 502 }), {
      timeoutMs: 10_000,
      intervalMs: 20,
    });
    expect(server.connection()?.isClosed()).toBe(false);
    expect(events).toEqual([]);

    events.push('released');
    gate.open();
    await expect(Promise.all(inflight)).resolves.toEqual([{ finished: true }, { finished: true }, { finished: true }]);
    await closing;
    // close() returned only after the release. (Whether the client reads the replies before
    // or after it returns is up to two sockets, so that order is not asserted.)
    expect(events[0]).toBe('released');
    expect([...events].sort()).toEqual(['answered', 'answered', 'answered', 'closed', 'released']);
  });

  it('gives up waiting after the grace period', async () => {
    const server = await startService('test-graceful-impatient', 100);
    const call = gatedCall(3_000).catch((error: unknown) => error);
    await expectEventually(() => expect(server.inflightCount).toBe(1), { timeoutMs: 10_000, intervalMs: 10 });

    // The gate is still shut, so close() can only return by giving up on the held request.
    await stopService();
    expect(server.connection()).toBeUndefined();
    expect(server.inflightCount).toBe(1);
    gate.open();

    // Work still running past the grace period loses its reply: the caller times out (504).
    await expect(call).resolves.toMatchObject({ code: 'upstream_request_failed', status: 504 });
  });

  it('answers a request past MAX_RPC_IN_FLIGHT at once with 503 upstream_request_failed, keeps the ones in flight, and takes requests again once one ends', async () => {
    // The event-loop check is off, so only the count decides, however busy the machine.
    const server = await startService('test-overload', 30_000, { maxInFlight: 2, maxEventLoopDelayMs: 0 });
    const held = [gatedCall(), gatedCall()];
    await expectEventually(() => expect(server.inflightCount).toBe(2), { timeoutMs: 10_000, intervalMs: 10 });

    const refusal = { code: 'upstream_request_failed', status: 503, details: { pattern: 'test.graceful.gated', reason: 'in_flight' } };
    await expect(gatedCall()).rejects.toMatchObject(refusal);
    // A stream's caller reads the refusal as the stream's error, not as silence.
    await expect(firstValueFrom(client.request('test.overload.stream', {}, {}).pipe(toArray()))).rejects.toMatchObject({
      ...refusal,
      details: { pattern: 'test.overload.stream', reason: 'in_flight' },
    });
    expect(server.inflightCount).toBe(2);

    gate.open();
    await expect(Promise.all(held)).resolves.toEqual([{ finished: true }, { finished: true }]);
    await expect(gatedCall()).resolves.toEqual({ finished: true });
  });
});
