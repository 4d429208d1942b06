import { WaggleException } from '@waggle/errors';

/**
 * SQLSTATE classes that blame the row itself: 22 data exception (a value out of range, text
 * jsonb cannot hold…) and 23 integrity constraint violation. Every other class (08 connection,
 * 40 serialization and deadlock, 53 resources, 57 shutdown, 42 a schema not migrated yet…)
 * blames the database or the deployment, and any other row would have failed the same way.
 */
const RECORD_SQLSTATE_CLASSES = new Set(['22', '23']);

/** Node and undici codes of a connection that failed or went quiet. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** nats.js codes of an unreachable, reconnecting or overloaded server (503: no responders, JetStream unavailable). */
const NATS_OUTAGE_CODES = new Set([
  'TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DRAINING',
  'CONNECTION_REFUSED',
  'CONNECTION_TIMEOUT',
  'DISCONNECT',
  '503',
  '408',
]);

/** Outages some drivers report by message only (pg's pool and socket, ioredis, a full JetStream stream). */
const OUTAGE_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Connection is closed\.?$/,
  /^Stream isn't writeable/,
  /maximum (bytes|messages) exceeded/i,
  /insufficient resources/i,
];

/**
 * Error names of outages: ioredis giving up on a command, an AbortSignal time-out, and TypeORM's
 * two names for a query runner released under a transaction (its connection was lost mid-request).
 */
const OUTAGE_NAMES = new Set([
  'MaxRetriesPerRequestError',
  'TimeoutError',
  'QueryRunnerAlreadyReleasedError',
  'QueryRunnerProviderAlreadyReleasedError',
]);

interface ErrorFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  severity?: unknown;
  driverError?: unknown;
  api_error?: { code?: unknown };
  errors?: unknown;
}

/** The SQLSTATE of a PostgreSQL error (pg's DatabaseError, or TypeORM's QueryFailedError around one). */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const fields = error as ErrorFields;
  if (fields.driverError !== undefined) return sqlStateOf(fields.driverError);
  return typeof fields.severity === 'string' && typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code)
    ? fields.code
    : undefined;
}

function isOutage(error: unknown, depth: number): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  if (error instanceof WaggleException) return error.code === 'upstream_request_failed';
  const sqlState = sqlStateOf(error);
  if (sqlState !== undefined) return !RECORD_SQLSTATE_CLASSES.has(sqlState.slice(0, 2));
  const fields = error as ErrorFields;
  // A JetStream API answer: 5xx is the server's state (stream full, no quorum), 4xx the message's.
  if (fields.api_error && typeof fields.api_error.code === 'number') return fields.api_error.code >= 500;
  if (typeof fields.code === 'string' && (NETWORK_ERROR_CODES.has(fields.code) || NATS_OUTAGE_CODES.has(fields.code))) return true;
  if (typeof fields.name === 'string' && OUTAGE_NAMES.has(fields.name)) return true;
  if (typeof fields.message === 'string' && OUTAGE_MESSAGES.some((pattern) => pattern.test(fields.message as string))) return true;
  // A connect to a host with several addresses fails with one error per address.
  if (Array.isArray(fields.errors)) return fields.errors.length > 0 && fields.errors.every((inner) => isOutage(inner, depth + 1));
  return false;
}

/**
 * The one place that tells the two kinds of failure apart, for every retry path (ledger
 * publisher and consumer, queue workers):
 *
 * - **transient** (true): an outage of a dependency, whatever the record or job was —
 *   PostgreSQL, NATS or Redis unreachable, a connection reset, a time-out, a full JetStream
 *   stream, any SQLSTATE outside classes 22 and 23, a service that did not answer
 *   (`upstream_request_failed`). The work stays where it is and is retried with capped backoff;
 *   it is never dead-lettered for it.
 * - **not transient** (false): the record or job fails by itself — SQLSTATE class 22 or 23, a
 *   value that cannot be serialized, a message JetStream refuses for its content (too large),
 *   a refusal (`WaggleException` of any other code), or any error not recognised as an outage.
 *   It gets a bounded number of attempts and is then dead-lettered.
 *
 * Wrapped causes are not followed (only TypeORM's `driverError`): a domain error that wraps a
 * network error (an attachment fetch, a provider call) has decided what it is already.
 */
export function isTransientFailure(error: unknown): boolean {
  return isOutage(error, 0);
}

/**
 * A failure as one line for a log field or a dead letter: its message, and the SQLSTATE when
 * PostgreSQL refused (never the statement or its parameters, which hold the whole batch).
 */
export function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const sqlState = sqlStateOf(error);
  const detail =
    typeof error === 'object' && error !== null && typeof (error as { detail?: unknown }).detail === 'string'
      ? ` (${(error as { detail: string }).detail})`
      : '';
  return sqlState ? `${message}${detail} [SQLSTATE ${sqlState}]` : message;
}
