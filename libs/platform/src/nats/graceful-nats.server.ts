import { ServerNats, type NatsOptions, type WritePacket } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription as NatsSubscription } from 'nats';
import type { Observable, Subscription } from 'rxjs';

type NatsServerOptions = Required<NatsOptions>['options'];
type Respond = (packet: WritePacket) => Promise<unknown> | void;

/**
 * Nest's NATS transport, with a shutdown that loses no work: on close it unsubscribes
 * first (queue-group peers take new messages), waits until every message already
 * received has been answered, or the grace period ends, then closes the connection.
 * Nest's own `gracefulShutdown` option only sleeps a fixed time.
 */
export class GracefulNatsServer extends ServerNats {
  private inflight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    options: NatsServerOptions,
    private readonly graceMs: number,
  ) {
    super(options);
  }

  get inflightCount(): number {
    return this.inflight;
  }

  /** The live connection, for readiness checks; undefined before listen and after close. */
  connection(): NatsConnection | undefined {
    try {
      return this.unwrap<NatsConnection>();
    } catch {
      return undefined;
    }
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    // Counted until the reply stream ends (see send), so close() can wait for it.
    this.begin();
    try {
      return await super.handleMessage(channel, natsMsg);
    } finally {
      this.end();
    }
  }

  override send(stream$: Observable<unknown>, respond: Respond): Subscription {
    this.begin();
    let finished = false;
    const trackedRespond: Respond = async (packet) => {
      try {
        return await respond(packet);
      } finally {
        if (packet.isDisposed && !finished) {
          finished = true;
          this.end();
        }
      }
    };
    return super.send(stream$, trackedRespond);
  }

  override async close(): Promise<void> {
    const connection = this.connection();
    if (connection && !connection.isClosed()) {
      // Nest keeps the subscriptions private; draining them is the only way to stop intake.
      const { subscriptions } = this as unknown as { subscriptions: NatsSubscription[] };
      await Promise.all(subscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
      await this.waitUntilIdle(this.graceMs);
      await connection.flush().catch(() => undefined);
    }
    await super.close();
  }

  private begin(): void {
    this.inflight += 1;
  }

  private end(): void {
    this.inflight -= 1;
    if (this.inflight === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private waitUntilIdle(limitMs: number): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, limitMs);
      timer.unref();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
