import { binarySignature } from '@waggle/documents';
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** How much of the file's start is kept for type detection (file-type reads at most a few KiB of most formats). */
export const SNIFF_BYTES = 64 * 1024;

/**
 * A pass-through that hashes (SHA-256), counts and keeps the first SNIFF_BYTES of what flows
 * through it, so a file is stored, hashed and typed in one pass without being held whole.
 */
export class ContentInspector extends Transform {
  private readonly hash = createHash('sha256');
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  /** Bytes seen so far (not `size`: lib-storage would read that as the body length). */
  byteCount = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.byteCount += chunk.length;
    if (this.headBytes < SNIFF_BYTES) {
      const kept = chunk.subarray(0, SNIFF_BYTES - this.headBytes);
      this.head.push(Buffer.from(kept));
      this.headBytes += kept.length;
    }
    callback(null, chunk);
  }

  /** Lowercase hex; call once the stream has ended. */
  sha256(): string {
    return this.hash.digest('hex');
  }

  /**
   * The media type the bytes show (text that merely starts like a binary format, "BM…", is not
   * one: binarySignature), else the declared one (parameters dropped), else application/octet-stream.
   */
  async contentType(declared: string | undefined): Promise<string> {
    const detected = await binarySignature(Buffer.concat(this.head));
    if (detected) return detected.mime;
    const media = declared?.split(';')[0].trim().toLowerCase();
    return media && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(media) ? media : 'application/octet-stream';
  }
}
