import { CLAIM_BUCKETS, RpcHeaders, type ClaimBucket } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { headers as natsHeaders, nanos, StorageType, type MsgHdrs, type NatsConnection, type ObjectStore } from 'nats';
import { randomUUID } from 'node:crypto';

/** Room kept under the server's max_payload for a message's headers (trace context, ids, the claim). */
const HEADER_ROOM_BYTES = 16 * 1024;
/** NATS's default max_payload, assumed until the server's INFO has said otherwise. */
const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
/** Chunks of a stored payload: fewer, larger chunks are fewer acknowledged publishes. */
const CHUNK_BYTES = 512 * 1024;
const EMPTY = new Uint8Array(0);

/**
 * A claim whose stored payload is gone (expired, or already consumed): the message can never be
 * read. A caller answers it as `upstream_request_failed`; a durable consumer sets it aside.
 */
export class ClaimGoneError extends WaggleException {
  constructor(readonly claim: string) {
    super('upstream_request_failed', {
      detail: 'claim_gone',
      details: { claim },
    });
  }
}

/** A message's bytes and headers, as sent or received (a core NATS Msg or a JetStream JsMsg). */
export interface WireMessage {
  data: Uint8Array;
  headers?: MsgHdrs;
}

/**
 * Payloads of any size over NATS, whose messages carry at most the server's max_payload
 * (1 MiB by default, and often fixed by a managed NATS): a payload that does not fit is put
 * in a JetStream object store bucket and the message carries only its name in the
 * `waggle-claim` header (the claim-check pattern). Everything that fits (nearly every
 * message) goes as it is, so the common path pays one length comparison. The receiver reads
 * a claim once and deletes it; the bucket's TTL removes any a receiver never read.
 */
export class ClaimCheck {
  private store?: Promise<ObjectStore>;

  constructor(
    private readonly connection: () => NatsConnection | undefined,
    private readonly bucket: ClaimBucket = 'rpc',
  ) {}

  /** The largest payload sent as it is on this connection. */
  limit(): number {
    return (this.connection()?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD_BYTES) - HEADER_ROOM_BYTES;
  }

  /** Whether `data` must travel as a claim. */
  exceeds(data: Uint8Array): boolean {
    return data.byteLength > this.limit();
  }

  /**
   * What goes on the wire for `data`: itself when it fits; otherwise it is stored and the
   * message is empty, with the claim header set on `headers` (made when not given).
   */
  async outgoing(data: Uint8Array, headers?: MsgHdrs): Promise<Required<WireMessage>> {
    const wireHeaders = headers ?? natsHeaders();
    if (!this.exceeds(data)) return { data, headers: wireHeaders };
    const name = randomUUID();
    await (await this.objectStore()).putBlob({ name, options: { max_chunk_size: CHUNK_BYTES } }, data);
    wireHeaders.set(RpcHeaders.claim, name);
    return { data: EMPTY, headers: wireHeaders };
  }

  /** The claim a received message carries, if it is one. */
  static claimOf(message: WireMessage): string | undefined {
    return message.headers?.has(RpcHeaders.claim) ? message.headers.get(RpcHeaders.claim) : undefined;
  }

  /**
   * A received message's real bytes: its own, or its claim's. A claim is deleted once read,
   * unless `keep` (a JetStream message that may be delivered again keeps it until `release`).
   * A claim that is gone (expired, already consumed) is `upstream_request_failed`.
   */
  async incoming(message: WireMessage, options: { keep?: boolean } = {}): Promise<Uint8Array> {
    const name = ClaimCheck.claimOf(message);
    if (name === undefined) return message.data;
    const data = await (await this.objectStore()).getBlob(name);
    if (!data) throw new ClaimGoneError(name);
    if (!options.keep) void this.release(name).catch(() => undefined);
    return data;
  }

  /** Deletes a claim's payload; one already gone is no error. */
  async release(name: string): Promise<void> {
    try {
      await (await this.objectStore()).delete(name);
    } catch (error) {
      if (error instanceof Error && /not found/i.test(error.message)) return;
      throw error;
    }
  }

  private objectStore(): Promise<ObjectStore> {
    const connection = this.connection();
    if (!connection || connection.isClosed()) return Promise.reject(new WaggleException('upstream_request_failed', { status: 503 }));
    const { name, ttlMs } = CLAIM_BUCKETS[this.bucket];
    this.store ??= connection
      .jetstream()
      .views.os(name, {
        ttl: nanos(ttlMs),
        storage: StorageType.File,
        description: 'Payloads of messages larger than NATS max_payload (claim checks)',
      })
      .catch((error: unknown) => {
        this.store = undefined;
        throw error;
      });
    return this.store;
  }
}
