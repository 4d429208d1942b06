import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { LedgerStream, type LedgerDeadLetter, type LedgerRecord } from '@waggle/contracts';
import {
  APP_ENV,
  cappedBackoffMs,
  ClaimCheck,
  ClaimGoneError,
  describeFailure,
  GroupCommit,
  isTransientFailure,
  jsonText,
  NatsRpcClient,
  OutageLog,
  type BackoffSettings,
} from '@waggle/platform';
import { ensureLedgerStream } from '@waggle/runs';
import { AckPolicy, DeliverPolicy, nanos, type ConsumerMessages, type JetStreamManager, type JsMsg } from 'nats';
import type { InvocationEnv } from '../config/invocation.env';
import { GovernanceReconciler } from '../governance/governance-reconciler';
import { LedgerDeadLettersRepository, type LedgerDeadLetterDraft } from './ledger-dead-letters.repository';
import { RequestsRepository } from './requests.repository';

/** How long a batch may stay unacknowledged (a replica died mid-write) before it is delivered again. */
const ACK_WAIT_MS = 30_000;
/** A batch whose write met an outage is delivered again after 1 s, doubling, at most 30 s, for as long as the outage lasts. */
const REDELIVERY_BACKOFF: BackoffSettings = { baseMs: 1_000, maxMs: 30_000 };
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

/** A ledger stream message, read: its records, and what is a dead letter before any write. */
interface ReadMessage {
  seq: number;
  records: LedgerRecord[];
  /** A publisher's dead letter, or a message that is not a batch of records. */
  deadLetters: LedgerDeadLetterDraft[];
}

/**
 * Writes the request ledger from the ledger stream: every replica pulls from one durable
 * consumer, messages that arrive while a write runs go out together in the next one (one
 * multi-row statement), and a message is acknowledged only once its records are committed.
 * Whatever was published while no replica ran waits in the stream.
 *
 * A write that fails is told apart (`isTransientFailure`). An outage of PostgreSQL leaves
 * every message of the group in the stream: each is nak'ed and delivered again with capped
 * backoff for as long as the outage lasts, never terminated, and the outage is logged once per
 * 30 s. A refusal (SQLSTATE 22 or 23: one record PostgreSQL cannot store) is isolated: the
 * group's messages are written one by one, and within a refused message its records one by one;
 * a record still refused alone is stored in `ledger_dead_letters` (as JSON text) with one error
 * line, and its message is acknowledged once its good records are written and its bad ones
 * dead-lettered. Publishers' dead letters (LedgerStream.deadLetterHeader) go straight there.
 */
@Injectable()
export class LedgerConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(LedgerConsumer.name);
  private readonly decoder = new TextDecoder();
  private consuming?: Promise<void>;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly writeOutage = new OutageLog(this.logger, 'writing the request ledger');
  private readonly readOutage = new OutageLog(this.logger, 'reading the ledger stream');
  private readonly commits = new GroupCommit<JsMsg, true>({
    run: (messages) => this.writeGroup(messages),
    keyOf: (message) => String(message.seq),
    maxBatch: 100,
    // One write at a time keeps the stream's order, so a record's later state lands last.
    maxInFlight: 1,
  });

  /** Batches larger than a NATS message arrive as claims: read, kept until acknowledged, then deleted. */
  private readonly claims: ClaimCheck;

  constructor(
    private readonly requests: RequestsRepository,
    private readonly deadLetters: LedgerDeadLettersRepository,
    private readonly governance: GovernanceReconciler,
    @Inject(NatsRpcClient) private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
  ) {
    this.claims = new ClaimCheck(() => this.rpc.connection(), 'ledger');
  }

  async onApplicationBootstrap(): Promise<void> {
    const manager = await this.manager();
    await ensureLedgerStream(
      manager,
      { replicas: this.env.LEDGER_STREAM_REPLICAS, maxBytes: this.env.LEDGER_STREAM_MAX_BYTES },
      { update: true },
    );
    const config = {
      durable_name: LedgerStream.consumer,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ACK_WAIT_MS),
      max_ack_pending: 1_000,
    };
    const existing = await manager.consumers.info(LedgerStream.name, LedgerStream.consumer).catch(() => null);
    if (existing)
      await manager.consumers.update(LedgerStream.name, LedgerStream.consumer, {
        ack_wait: config.ack_wait,
        max_ack_pending: config.max_ack_pending,
      });
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
        while (!this.stopped) {
          await this.consume(await consumer.fetch({ max_messages: FETCH_MAX_MESSAGES, expires: FETCH_EXPIRES_MS }));
          this.readOutage.recovered();
        }
      } catch (error) {
        this.readOutage.failed(error);
        if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
      }
    }
  }

  private async consume(messages: ConsumerMessages): Promise<void> {
    for await (const message of messages) {
      const done = this.commits.submit(message).then(
        async () => {
          this.writeOutage.recovered();
          await this.acknowledge(message);
        },
        (error: unknown) => this.waitOutOutage(message, error),
      );
      this.inFlight.add(done);
      void done.finally(() => this.inFlight.delete(done));
    }
  }

  /**
   * Acknowledges a written batch, then deletes its claimed payload (if it had one): nothing will
   * read it again. The delete is part of the message's work in flight, so a stop waits for it
   * rather than leaving the payload to its TTL.
   */
  private async acknowledge(message: JsMsg): Promise<void> {
    message.ack();
    const claim = ClaimCheck.claimOf(message);
    if (claim === undefined) return;
    await this.claims
      .release(claim)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, claim }, 'a written ledger batch could not be removed from the claim bucket; its TTL will'),
      );
  }

  /**
   * Every message of the group in one statement; when PostgreSQL refuses it (not an outage),
   * each message alone, in stream order, so the bad record's neighbours are written all the same.
   */
  private async writeGroup(messages: JsMsg[]): Promise<Array<true | Error>> {
    const read = await Promise.all(messages.map((message) => this.read(message).catch((error: unknown) => asError(error))));
    const readable = read.filter((one): one is ReadMessage => !(one instanceof Error));
    let written = false;
    try {
      await this.requests.upsert(readable.flatMap((one) => one.records));
      await this.storeDeadLetters(readable.flatMap((one) => one.deadLetters));
      written = true;
    } catch (error) {
      if (isTransientFailure(error)) return read.map(() => asError(error));
    }
    if (written) {
      const settled = await this.settle(readable.flatMap((one) => one.records));
      return read.map((one) => (one instanceof Error ? one : settled));
    }
    const results: Array<true | Error> = [];
    let outage: Error | undefined;
    for (const one of read) {
      if (one instanceof Error || outage) {
        results.push(one instanceof Error ? one : (outage as Error));
        continue;
      }
      try {
        await this.writeAlone(one);
        results.push(await this.settle(one.records));
      } catch (error) {
        results.push(asError(error));
        if (isTransientFailure(error)) outage = asError(error);
      }
    }
    return results;
  }

  /**
   * Usage governance's reconciliation of the written records' ended runs (one Redis round trip):
   * when Redis fails, the messages come back (written again, which changes nothing, and settled
   * then; a run already settled is not charged twice).
   */
  private async settle(records: LedgerRecord[]): Promise<true | Error> {
    try {
      await this.governance.reconcile(records);
      return true;
    } catch (error) {
      return asError(error);
    }
  }

  /** One message: its records together, else one by one; a record refused alone becomes a dead letter. */
  private async writeAlone(message: ReadMessage): Promise<void> {
    const deadLetters = [...message.deadLetters];
    try {
      await this.requests.upsert(message.records);
    } catch (error) {
      if (isTransientFailure(error)) throw error;
      for (const record of message.records) {
        try {
          await this.requests.upsert([record]);
        } catch (recordError) {
          if (isTransientFailure(recordError)) throw recordError;
          deadLetters.push(this.refusedRecord(message.seq, record, recordError));
        }
      }
    }
    await this.storeDeadLetters(deadLetters);
  }

  /** Stored before its message is acknowledged: should that fail, the message is delivered again. */
  private async storeDeadLetters(drafts: LedgerDeadLetterDraft[]): Promise<void> {
    await this.deadLetters.insert(drafts);
    for (const draft of drafts) {
      const line = {
        request_id: draft.requestId,
        workspace_id: draft.workspaceId,
        stream_seq: draft.streamSeq,
        dead_lettered_by: draft.deadLetteredBy,
        error: draft.error,
      };
      // A publisher's dead letter was logged as an error where it was given up on.
      if (draft.deadLetteredBy === LedgerStream.consumer)
        this.logger.error(line, 'ledger record dead-lettered: it could not be written (invocation.dead-letters.list shows it)');
      else this.logger.warn(line, "a publisher's ledger dead letter was stored (invocation.dead-letters.list shows it)");
    }
  }

  /** Any failure left after isolation is an outage: the message waits in the stream and comes back, never terminated. */
  private waitOutOutage(message: JsMsg, error: unknown): void {
    const deliveries = message.info.redeliveryCount;
    const delayMs = cappedBackoffMs(deliveries, REDELIVERY_BACKOFF);
    this.writeOutage.failed(error, { stream_seq: message.seq, deliveries, retry_in_ms: delayMs });
    message.nak(delayMs);
  }

  private async read(message: JsMsg): Promise<ReadMessage> {
    const bytes = await this.bytesOf(message);
    const seq = message.seq;
    if (!bytes)
      return {
        seq,
        records: [],
        deadLetters: [unreadable(seq, '', `its claim-checked payload (${ClaimCheck.claimOf(message)}) is gone: expired or deleted`)],
      };
    const text = this.decoder.decode(bytes);
    if (message.headers?.has(LedgerStream.deadLetterHeader))
      return { seq, records: [], deadLetters: [this.publishersDeadLetter(seq, text)] };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { seq, records: [], deadLetters: [unreadable(seq, text, `the message is not JSON: ${describeFailure(error)}`)] };
    }
    if (!Array.isArray(parsed))
      return { seq, records: [], deadLetters: [unreadable(seq, text, 'the message is not a batch of ledger records (a JSON array)')] };
    return { seq, records: parsed as LedgerRecord[], deadLetters: [] };
  }

  /**
   * The one place a message's bytes are read: its own, or its claim's, kept until the batch is
   * acknowledged (a failed write delivers the message again). Null when the claim is gone.
   */
  private async bytesOf(message: JsMsg): Promise<Uint8Array | null> {
    try {
      return await this.claims.incoming(message, { keep: true });
    } catch (error) {
      if (error instanceof ClaimGoneError) return null;
      throw error;
    }
  }

  private publishersDeadLetter(seq: number, text: string): LedgerDeadLetterDraft {
    let letter: Partial<LedgerDeadLetter>;
    try {
      letter = JSON.parse(text) as Partial<LedgerDeadLetter>;
    } catch {
      return unreadable(seq, text, 'a dead letter that is not JSON');
    }
    if (typeof letter !== 'object' || letter === null || typeof letter.record !== 'string')
      return unreadable(seq, text, 'a dead letter without its record');
    return {
      requestId: typeof letter.request_id === 'string' ? letter.request_id : null,
      workspaceId: typeof letter.workspace_id === 'string' ? letter.workspace_id : null,
      record: letter.record,
      truncated: letter.truncated === true,
      error: typeof letter.error === 'string' ? letter.error : 'dead-lettered by its publisher',
      attempts:
        typeof letter.attempts === 'number' && Number.isInteger(letter.attempts) && letter.attempts >= 0
          ? Math.min(letter.attempts, 1_000_000)
          : 1,
      deadLetteredBy: typeof letter.publisher === 'string' ? letter.publisher : 'a publisher',
      streamSeq: seq,
    };
  }

  private refusedRecord(seq: number, record: LedgerRecord, error: unknown): LedgerDeadLetterDraft {
    const fields = (typeof record === 'object' && record !== null ? record : {}) as Partial<Record<'request_id' | 'workspace_id', unknown>>;
    return {
      requestId: typeof fields.request_id === 'string' ? fields.request_id : null,
      workspaceId: typeof fields.workspace_id === 'string' ? fields.workspace_id : null,
      record: jsonText(record),
      truncated: false,
      error: describeFailure(error),
      attempts: 1,
      deadLetteredBy: LedgerStream.consumer,
      streamSeq: seq,
    };
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

/** A message that is no batch of records at all: kept whole, as text, for an operator to read. */
function unreadable(seq: number, text: string, error: string): LedgerDeadLetterDraft {
  return {
    requestId: null,
    workspaceId: null,
    record: text,
    truncated: false,
    error,
    attempts: 1,
    deadLetteredBy: LedgerStream.consumer,
    streamSeq: seq,
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
