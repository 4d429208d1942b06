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
      // Self-hosted S3-compatible servers often reject the SDK's default flexible checksums
      // (aws-chunked bodies with checksum trailers): against one, checksums only where S3 requires them.
      ...(settings.endpoint && {
        endpoint: settings.endpoint,
        requestChecksumCalculation: 'WHEN_REQUIRED' as const,
        responseChecksumValidation: 'WHEN_REQUIRED' as const,
      }),
      ...(settings.credentials && { credentials: settings.credentials }),
    };
    this.client = new S3Client(config);
  }

  async write(key: string, source: Readable): Promise<void> {
    // Parts are left on error by lib-storage and aborted here, best effort, so the upload's own
    // failure is what surfaces (a server that refuses the abort would otherwise mask it).
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.settings.bucket, Key: checkStorageKey(key), Body: source },
      queueSize: 2,
      leavePartsOnError: true,
    });
    try {
      await upload.done();
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
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
