import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { LedgerStream, type LedgerRecord } from '@waggle/contracts';
import { APP_ENV, ensureLedgerStream, GroupCommit, NatsRpcClient } from '@waggle/platform';
import { AckPolicy, DeliverPolicy, nanos, type ConsumerMessages, type JetStreamManager, type JsMsg } from 'nats';
import type { InvocationEnv } from '../config/invocation.env';
import { RequestsRepository } from './requests.repository';

/** How long a batch may stay unacknowledged (a replica died mid-write) before it is delivered again. */
const ACK_WAIT_MS = 30_000;
/** A batch that fails this often is set aside (logged whole) rather than blocking the stream. */
const MAX_DELIVERIES = 10;
const CATCH_UP_POLL_MS = 10;
/**
 * Longest a lookup that missed waits for the stream's earlier batches. Only a backlog costs
 * it (with none, the first check answers): right after the owner restarts, under load, its
 * first write can take a few seconds, and answering 404 for a stored run would be wrong.
 */
const CATCH_UP_TIMEOUT_MS = 5_000;
const RESTART_DELAY_MS = 1_000;
/** How long one fetch waits for messages (NATS's minimum): also the longest a stop waits for the fetch under way. */
const FETCH_EXPIRES_MS = 1_000;
const FETCH_MAX_MESSAGES = 200;

/**
 * Writes the request ledger from the ledger stream: every replica pulls from one durable
 * consumer, messages that arrive while a write runs go out together in the next one (one
 * multi-row statement), and a message is acknowledged only once its records are committed.
 * Whatever was published while no replica ran waits in the stream.
 */
@Injectable()
export class LedgerConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LedgerConsumer.name);
  private readonly decoder = new TextDecoder();
  private consuming?: Promise<void>;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly commits = new GroupCommit<JsMsg, true>({
    run: async (messages) => {
      await this.requests.upsert(messages.flatMap((message) => this.recordsOf(message)));
      return messages.map(() => true as const);
    },
    keyOf: (message) => String(message.seq),
    maxBatch: 100,
    // One write at a time keeps the stream's order, so a record's later state lands last.
    maxInFlight: 1,
  });

  constructor(
    private readonly requests: RequestsRepository,
    @Inject(NatsRpcClient) private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const manager = await this.manager();
    await ensureLedgerStream(manager, { replicas: this.env.LEDGER_STREAM_REPLICAS, maxBytes: this.env.LEDGER_STREAM_MAX_BYTES }, { update: true });
    const config = {
      durable_name: LedgerStream.consumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ACK_WAIT_MS),
      max_ack_pending: 1_000,
    };
    const existing = await manager.consumers.info(LedgerStream.name, LedgerStream.consumer).catch(() => null);
    if (existing) await manager.consumers.update(LedgerStream.name, LedgerStream.consumer, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
    else await manager.consumers.add(LedgerStream.name, config);
    this.consuming = this.consumeUntilStopped();
  }

  /**
   * Stops fetching once the fetch under way has ended (within FETCH_EXPIRES_MS) and finishes
   * the writes of everything it returned; the rest waits in the stream for the next start.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.consuming;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Waits until every batch published before this call is committed (or `timeoutMs` passes):
   * a lookup that missed a record asks this before answering 404, since another replica
   * or service may have just published it.
   */
  async caughtUp(timeoutMs = CATCH_UP_TIMEOUT_MS): Promise<boolean> {
    const manager = await this.manager();
    const { state } = await manager.streams.info(LedgerStream.name);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await manager.consumers.info(LedgerStream.name, LedgerStream.consumer);
      if (info.ack_floor.stream_seq >= state.last_seq) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, CATCH_UP_POLL_MS));
    }
  }

  /**
   * Fetches until the app stops. Each fetch ends by itself within FETCH_EXPIRES_MS, and every
   * message it returned is handed to the writer before `stopped` is looked at again: a stop
   * never abandons a message the server already delivered to this replica (with `consume()`
   * a message buffered at the moment of the stop went unanswered and waited out ACK_WAIT,
   * so a lookup right after a restart answered 404 for a run that had been published).
   */
  private async consumeUntilStopped(): Promise<void> {
    while (!this.stopped) {
      try {
        const consumer = await this.connection().jetstream().consumers.get(LedgerStream.name, LedgerStream.consumer);
        while (!this.stopped) await this.consume(await consumer.fetch({ max_messages: FETCH_MAX_MESSAGES, expires: FETCH_EXPIRES_MS }));
      } catch (error) {
        this.logger.warn({ err: error }, 'the ledger stream could not be read; trying again');
        if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
      }
    }
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      const done = this.commits.submit(message).then(
        () => message.ack(),
        (error: unknown) => this.failed(message, error),
      );
      this.inFlight.add(done);
      void done.finally(() => this.inFlight.delete(done));
    }
  }

  private failed(message: JsMsg, error: unknown): void {
    if (message.info.redeliveryCount >= MAX_DELIVERIES) {
      // Logged whole so an operator can replay it; the stream moves on.
      this.logger.error({ err: error, stream_seq: message.seq, records: this.decoder.decode(message.data) }, 'a ledger batch could not be written and was set aside');
      message.term();
      return;
    }
    this.logger.warn({ err: error, stream_seq: message.seq, deliveries: message.info.redeliveryCount }, 'a ledger batch could not be written; it will be delivered again');
    message.nak(Math.min(1_000 * message.info.redeliveryCount, 30_000));
  }

  private recordsOf(message: JsMsg): LedgerRecord[] {
    try {
      const records = JSON.parse(this.decoder.decode(message.data)) as unknown;
      return Array.isArray(records) ? (records as LedgerRecord[]) : [];
    } catch {
      this.logger.error({ stream_seq: message.seq }, 'a ledger message is not JSON; dropped');
      return [];
    }
  }

  private connection() {
    const connection = this.rpc.connection();
    if (!connection) throw new Error('NATS is not connected');
    return connection;
  }

  private manager(): Promise<JetStreamManager> {
    return this.connection().jetstreamManager();
  }
}
