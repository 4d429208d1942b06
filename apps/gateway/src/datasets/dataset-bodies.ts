import { DATASET_UPLOAD_MAX_BYTES } from '@waggle/contracts';
import { json, raw, type NextFunction, type Request, type Response } from 'express';

const DATASETS_PATH = /^\/v1\/private\/datasets(?:\/|$)/;
const IMPORT_PATH = /^\/v1\/private\/datasets\/[^/]+\/versions\/import\/?$/;

/**
 * The bodies of the datasets' routes (the spec's decisions: an upload up to 10 MiB), mounted
 * before the gateway's JSON parser, whose MAX_JSON_BODY_BYTES is for everything else: an import
 * is kept as bytes whatever its Content-Type (CSV or JSONL, checked as UTF-8 by its route), and
 * the other routes' JSON may be as large. A body past the limit is a 413 before the key is read,
 * as everywhere.
 */
export function datasetBodies(): (request: Request, response: Response, next: NextFunction) => void {
  const upload = raw({ type: () => true, limit: DATASET_UPLOAD_MAX_BYTES });
  const body = json({ limit: DATASET_UPLOAD_MAX_BYTES });
  return (request, response, next) => {
    if (!DATASETS_PATH.test(request.path)) return next();
    (IMPORT_PATH.test(request.path) ? upload : body)(request, response, next);
  };
}
