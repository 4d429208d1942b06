import type { Readable } from 'node:stream';

/**
 * Where asset bytes live, behind one interface so the deployment chooses: a local directory
 * (FilesystemAssetStorage) or S3-compatible object storage (S3AssetStorage). Keys are
 * relative paths of safe segments (`<workspace_id>/<asset_id>`).
 */
export abstract class AssetStorage {
  /** Streams `source` to `key`; the object exists whole once this resolves, and not at all if it rejects. */
  abstract write(key: string, source: Readable): Promise<void>;
  /** The object's bytes; rejects when there is none. */
  abstract read(key: string): Promise<Readable>;
  /** Deletes the object; an object already gone is no error. */
  abstract remove(key: string): Promise<void>;
}

const KEY = /^[0-9A-Za-z_-]+(\/[0-9A-Za-z_-]+)*$/;

/** Refuses anything but slash-separated safe segments, so no key can leave the storage's root. */
export function checkStorageKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid asset storage key: ${key}`);
  return key;
}
