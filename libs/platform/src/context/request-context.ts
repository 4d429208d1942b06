import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** What every log line and span of one client request carries, across processes. */
export interface RequestContextStore {
  requestId?: string;
  workspaceId?: string;
}

const storage = new AsyncLocalStorage<RequestContextStore>();

export const requestContext = {
  run<T>(store: RequestContextStore, fn: () => T): T {
    return storage.run(store, fn);
  },
  get(): RequestContextStore | undefined {
    return storage.getStore();
  },
};

/** `req_` + the 32 hex digits of a UUIDv7, so request ids sort by creation time. */
export function newRequestId(): string {
  return `req_${uuidv7().replace(/-/g, '')}`;
}

export const REQUEST_ID_PATTERN = /^req_[0-9a-f]{32}$/;

/** Opaque id that ties an internal_server_error answer to its log line. */
export function newErrorId(): string {
  return `err_${randomBytes(8).toString('hex')}`;
}
