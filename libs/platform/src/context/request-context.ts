import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** What every log line and span of one client request carries, across processes. */
export interface RequestContextStore {
  requestId?: string;
  workspaceId?: string;
  /** The caller's API key id (RpcHeaders.apiKeyId). */
  apiKeyId?: string;
  /** The gateway's admission found the hosted credits used up (RpcHeaders.creditsExhausted). */
  creditsExhausted?: boolean;
  /**
   * When the caller stops waiting for the answer (epoch ms), as its RpcHeaders.deadline said:
   * a handler that may outlast it answers before it instead (see msUntilDeadline).
   */
  deadlineAt?: number;
}

const storage = new AsyncLocalStorage<RequestContextStore>();

export const requestContext = {
  run<T, A extends unknown[]>(store: RequestContextStore, fn: (...args: A) => T, ...args: A): T {
    return storage.run(store, fn, ...args);
  },
  get(): RequestContextStore | undefined {
    return storage.getStore();
  },
};

/**
 * How long the current RPC's caller still waits (ms, never below 0), or undefined when it sent
 * no deadline. A handler that may take longer answers within it, so the caller gets the
 * service's own answer instead of giving up on its side.
 */
export function msUntilDeadline(now = Date.now()): number | undefined {
  const deadlineAt = storage.getStore()?.deadlineAt;
  return deadlineAt === undefined ? undefined : Math.max(0, deadlineAt - now);
}

/** `req_` + the 32 hex digits of a UUIDv7, so request ids sort by creation time. */
export function newRequestId(): string {
  return `req_${uuidv7().replace(/-/g, '')}`;
}

export const REQUEST_ID_PATTERN = /^req_[0-9a-f]{32}$/;

/** When a request id was made (its UUIDv7's milliseconds), or null for a string that is not one. */
export function requestIdTime(requestId: string): number | null {
  if (!REQUEST_ID_PATTERN.test(requestId) || requestId[16] !== '7') return null;
  return parseInt(requestId.slice(4, 16), 16);
}

/** Opaque id that ties an internal_server_error answer to its log line. */
export function newErrorId(): string {
  return `err_${randomBytes(8).toString('hex')}`;
}
