import { DeleteObjectCommand, GetObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { AssetStorage, checkStorageKey } from './asset-storage';

export interface S3AssetStorageSettings {
  bucket: string;
  /** An S3-compatible server's URL; undefined = AWS S3. */
  endpoint?: string;
  region: string;
  /** Undefined = the AWS default credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
}

/**
 * Assets as objects of one S3 (or S3-compatible) bucket. A write is a streaming multipart
 * upload (lib-storage's Upload): parts are sent as they fill, never the whole file at once,
 * and a failed upload is aborted so no partial object remains.
 */
export class S3AssetStorage extends AssetStorage {
  private readonly client: S3Client;

  constructor(private readonly settings: S3AssetStorageSettings) {
    super();
    const config: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint && { endpoint: settings.endpoint }),
      ...(settings.credentials && { credentials: settings.credentials }),
    };
    this.client = new S3Client(config);
  }

  async write(key: string, source: Readable): Promise<void> {
    const upload = new Upload({ client: this.client, params: { Bucket: this.settings.bucket, Key: checkStorageKey(key), Body: source }, queueSize: 2 });
    await upload.done();
  }

  async read(key: string): Promise<Readable> {
    const answer = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: checkStorageKey(key) }));
    if (!(answer.Body instanceof Readable)) throw new Error(`asset object ${key} has no readable body`);
    return answer.Body;
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: checkStorageKey(key) }));
  }

  close(): void {
    this.client.destroy();
  }
}
