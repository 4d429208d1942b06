import { Injectable } from '@nestjs/common';
import { FILE_STAGING_BUCKET } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { nanos, NatsError, StorageType, type ObjectInfo, type ObjectStore } from 'nats';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { NatsRpcClient } from '../nats/nats-rpc.client';

/** What a caller sees while NATS is unreachable or restarting: a retryable 503, not an unexpected error. */
function stagingUnavailable(cause?: unknown): WaggleException {
  return new WaggleException('upstream_request_failed', { status: 503, detail: 'file_staging_unavailable', cause });
}

/** NATS's own failures become `stagingUnavailable`; anything else (the source stream failing) stays as it is. */
function asStagingFailure(error: unknown): unknown {
  return error instanceof NatsError ? stagingUnavailable(error) : error;
}

/** How long a staged object may wait for its consumer before the bucket drops it. */
export const FILE_STAGING_TTL_MS = 60 * 60 * 1000;

/**
 * The NATS JetStream object store bucket FILE_STAGING_BUCKET, where file bytes cross
 * processes: each object is streamed in and out in chunks, never held whole. The bucket is
 * created on first use (idempotently, with a TTL so abandoned objects expire).
 */
@Injectable()
export class FileStaging {
  private bucket?: Promise<ObjectStore>;

  constructor(private readonly rpc: NatsRpcClient) {}

  private store(): Promise<ObjectStore> {
    const connection = this.rpc.connection();
    if (!connection || connection.isClosed()) return Promise.reject(stagingUnavailable());
    this.bucket ??= connection
      .jetstream()
      .views.os(FILE_STAGING_BUCKET, {
        ttl: nanos(FILE_STAGING_TTL_MS),
        storage: StorageType.File,
        description: 'File bytes between Waggle services',
      })
      .catch((error: unknown) => {
        this.bucket = undefined;
        throw asStagingFailure(error);
      });
    return this.bucket;
  }

  /** Streams `source` into the bucket under `name` (replacing any object of that name). */
  async put(name: string, source: Readable): Promise<ObjectInfo> {
    const store = await this.store();
    return store.put({ name }, Readable.toWeb(source) as unknown as ReadableStream<Uint8Array>).catch((error: unknown) => {
      throw asStagingFailure(error);
    });
  }

  /** The object's bytes as a stream, or null when there is no such object (consumed, expired, never staged). */
  async open(name: string): Promise<{ info: ObjectInfo; stream: Readable } | null> {
    const store = await this.store();
    const result = await store.get(name).catch((error: unknown) => {
      throw asStagingFailure(error);
    });
    if (!result) return null;
    const stream = Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>);
    // A chunk missing or a digest mismatch fails the stream rather than ending it short.
    void result.error.then((error) => {
      if (error) stream.destroy(error);
    });
    return { info: result.info, stream };
  }

  /** Deletes the object; an object already gone is no error. */
  async remove(name: string): Promise<void> {
    const store = await this.store();
    try {
      await store.delete(name);
    } catch (error) {
      if (error instanceof Error && /not found/i.test(error.message)) return;
      throw asStagingFailure(error);
    }
  }
}
