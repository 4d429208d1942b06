import { Injectable } from '@nestjs/common';
import { ASSET_MAX_UPLOAD_BYTES } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { contained, FileStaging } from '@waggle/platform';
import type { Request } from 'express';
import multer, { MulterError, type StorageEngine } from 'multer';
import { randomUUID } from 'node:crypto';
import { Transform } from 'node:stream';

/** The multipart field that carries the file (decisions: asset record). */
export const ASSET_FILE_FIELD = 'file';

/** An upload streamed into the staging bucket. */
export interface StagedUpload {
  stagedObject: string;
  name: string;
  declaredContentType: string;
  sizeBytes: number;
}

/**
 * multer's storage: each file part is streamed into the staging bucket as `upload/<uuid>`
 * while its bytes are counted, so the gateway never holds a file whole; a removed file
 * (an aborted upload, one over the size limit) has its staged object deleted.
 */
class StagingStorageEngine implements StorageEngine {
  constructor(private readonly staging: FileStaging) {}

  _handleFile(
    _request: Request,
    file: Express.Multer.File,
    callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void,
  ): void {
    const stagedObject = `upload/${randomUUID()}`;
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    let settled = false;
    const settle = (error: unknown, info?: Partial<Express.Multer.File>) => {
      if (settled) return;
      settled = true;
      callback(error, info);
    };
    // A part that fails (the client aborts, the form ends early) is refused at once; whatever
    // of it reached the bucket is deleted once the put gives up.
    file.stream.on(
      'error',
      contained('an upload stream', (error: Error) => counter.destroy(error)),
    );
    counter.on(
      'error',
      contained('an upload stream', (error: Error) => settle(error)),
    );
    this.staging.put(stagedObject, file.stream.pipe(counter)).then(
      () => settle(null, { path: stagedObject, size }),
      (error: unknown) => {
        void this.staging.remove(stagedObject).catch(() => undefined);
        settle(error);
      },
    );
  }

  _removeFile(_request: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    this.staging.remove(file.path).then(
      () => callback(null),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }
}

/** multer's refusals as catalog errors: past the size limit 413, anything else about the form 422 or 400. */
function toUploadException(error: unknown): WaggleException {
  if (error instanceof WaggleException) return error;
  if (error instanceof MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') {
      return new WaggleException('validation_error', {
        status: 413,
        detail: 'upload_too_large',
        params: { mebibytes: ASSET_MAX_UPLOAD_BYTES / (1024 * 1024) },
        details: [{ field: ASSET_FILE_FIELD, messages: [`at most ${ASSET_MAX_UPLOAD_BYTES} bytes`] }],
      });
    }
    if (error.code === 'LIMIT_UNEXPECTED_FILE' || error.code === 'LIMIT_FILE_COUNT') {
      return new WaggleException('validation_error', {
        detail: 'upload_one_file',
        params: { field: ASSET_FILE_FIELD },
        details: [{ field: error.field ?? ASSET_FILE_FIELD, messages: ['unexpected file'] }],
      });
    }
    return new WaggleException('validation_error', {
      detail: 'upload_form_unacceptable',
      details: [{ field: error.field ?? 'body', messages: [error.message] }],
    });
  }
  // busboy: a malformed multipart body (no boundary, truncated form, ...).
  return new WaggleException('invalid_request', { detail: 'upload_body_malformed', cause: error });
}

/**
 * Reads the `file` part of a multipart upload into the staging bucket: over
 * ASSET_MAX_UPLOAD_BYTES answers 413 validation_error (the staged part deleted), no file
 * 422 missing_required_field naming `file`.
 */
@Injectable()
export class AssetUploads {
  private readonly middleware: ReturnType<multer.Multer['single']>;

  constructor(private readonly staging: FileStaging) {
    this.middleware = multer({
      storage: new StagingStorageEngine(staging),
      limits: { fileSize: ASSET_MAX_UPLOAD_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 25 },
    }).single(ASSET_FILE_FIELD);
  }

  async receive(request: Request): Promise<StagedUpload> {
    // multer reads the bytes as they come: a compressed form would be parsed as garbage.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity')
      throw new WaggleException('invalid_request', { status: 415, detail: 'upload_encoding_unsupported' });
    await new Promise<void>((resolve, reject) => {
      // multer reads only the request; the response is Nest's.
      this.middleware(request, request.res as Parameters<typeof this.middleware>[1], (error?: unknown) =>
        error ? reject(toUploadException(error)) : resolve(),
      );
    });
    const file = request.file;
    if (!file) {
      throw new WaggleException('missing_required_field', {
        detail: 'missing_required_fields',
        params: { fields: ASSET_FILE_FIELD },
        details: [
          { field: ASSET_FILE_FIELD, messages: [`a multipart/form-data part named "${ASSET_FILE_FIELD}" carrying the file is required`] },
        ],
      });
    }
    return {
      stagedObject: file.path,
      name: (file.originalname || 'file').slice(0, 1024),
      declaredContentType: (file.mimetype ?? '').slice(0, 255),
      sizeBytes: file.size,
    };
  }

  /** Deletes a staged upload nobody will consume (the asset service deletes those it receives). */
  discard(upload: StagedUpload): Promise<void> {
    return this.staging.remove(upload.stagedObject);
  }
}
