import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AssetStorage, checkStorageKey } from './asset-storage';

/**
 * Assets as files under one directory. A write goes to a temporary file beside its target
 * and is renamed into place once complete, so a reader never sees a partial file.
 */
export class FilesystemAssetStorage extends AssetStorage {
  private readonly root: string;

  constructor(directory: string) {
    super();
    this.root = resolve(directory);
  }

  private path(key: string): string {
    return join(this.root, checkStorageKey(key));
  }

  async write(key: string, source: Readable): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.${randomUUID()}.partial`;
    try {
      await pipeline(source, createWriteStream(temporary, { flags: 'wx' }));
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<Readable> {
    // Opened first, so a missing file rejects here rather than failing the stream later.
    const handle = await open(this.path(key), 'r');
    return handle.createReadStream();
  }

  async remove(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
