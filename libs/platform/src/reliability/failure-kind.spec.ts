import { WaggleException } from '@waggle/errors';
import { ErrorCode, NatsError } from 'nats';
import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';
import { describeFailure, isTransientFailure, sqlStateOf } from './failure-kind';

/** An error as pg raises it for a refused statement. */
function postgresError(code: string, message: string, detail?: string): DatabaseError {
  return Object.assign(new DatabaseError(message, 0, 'error'), { severity: 'ERROR', code, detail });
}

/** As nats.js raises a JetStream API error (the PubAck's `error`). */
function jetStreamError(status: number, errCode: number, description: string): NatsError {
  return Object.assign(new NatsError(description, String(status)), { api_error: { code: status, err_code: errCode, description } });
}

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

describe('isTransientFailure', () => {
  describe('an outage of a dependency is transient', () => {
    it.each([
      ['PostgreSQL unreachable (ECONNREFUSED)', systemError('ECONNREFUSED')],
      ['a connection reset', systemError('ECONNRESET')],
      ['a connect time-out', systemError('ETIMEDOUT')],
      ['a host name that does not resolve yet', systemError('EAI_AGAIN')],
      [
        'every address of a host refusing (AggregateError)',
        Object.assign(new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')], 'connect failed')),
      ],
      ["pg's socket dropping", new Error('Connection terminated unexpectedly')],
      ["pg's pool finding no connection in time", new Error('timeout exceeded when trying to connect')],
      ['PostgreSQL shutting down (57P01)', postgresError('57P01', 'terminating connection due to administrator command')],
      ['PostgreSQL out of connections (53300)', postgresError('53300', 'sorry, too many clients already')],
      ['a deadlock (40P01)', postgresError('40P01', 'deadlock detected')],
      ['a table not migrated yet (42P01)', postgresError('42P01', 'relation "invocation.requests" does not exist')],
      [
        'a connection failure wrapped by TypeORM (08006)',
        new QueryFailedError('INSERT …', [], postgresError('08006', 'connection failure')),
      ],
      ['NATS not answering in time', NatsError.errorForCode(ErrorCode.Timeout)],
      ['NATS disconnected', NatsError.errorForCode(ErrorCode.Disconnect)],
      ['NATS connection closed', NatsError.errorForCode(ErrorCode.ConnectionClosed)],
      ['no responders (the stream or service is not there yet)', NatsError.errorForCode(ErrorCode.NoResponders)],
      ['a full JetStream stream (503, maximum bytes exceeded)', jetStreamError(503, 10077, 'maximum bytes exceeded')],
      [
        'Redis refusing commands while it is away (ioredis, no offline queue)',
        new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      ],
      ['a closed Redis connection', new Error('Connection is closed.')],
      [
        'ioredis giving up on a command',
        Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }),
      ],
      ['an AbortSignal time-out', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
      [
        'TypeORM after its connection was lost under a transaction',
        Object.assign(new Error('Query runner already released. Cannot run queries anymore.'), { name: 'QueryRunnerAlreadyReleasedError' }),
      ],
      [
        'TypeORM after its connection was lost under a transaction (through the entity manager)',
        Object.assign(new Error('Database connection provided by a query runner was already released'), {
          name: 'QueryRunnerProviderAlreadyReleasedError',
        }),
      ],
      ['a service that did not answer', new WaggleException('upstream_request_failed', { status: 504 })],
    ])('%s', (_what, error) => {
      expect(isTransientFailure(error)).toBe(true);
    });
  });

  describe('a record or job that fails by itself is not', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;

    it.each([
      [
        'jsonb refusing \\u0000 (22P05)',
        postgresError('22P05', 'unsupported Unicode escape sequence', '\\u0000 cannot be converted to text.'),
      ],
      ['a value out of range of its column (22003)', postgresError('22003', 'value "3000000000" is out of range for type integer')],
      ['a value of the wrong type (22P02)', postgresError('22P02', 'invalid input syntax for type uuid: "nope"')],
      ['a missing required value (23502)', postgresError('23502', 'null value in column "id" violates not-null constraint')],
      [
        'a unique violation wrapped by TypeORM (23505)',
        new QueryFailedError('INSERT …', [], postgresError('23505', 'duplicate key value violates unique constraint')),
      ],
      ['a value JSON cannot hold (circular)', thrownBy(() => JSON.stringify(circular))],
      ['a value JSON cannot hold (BigInt)', thrownBy(() => JSON.stringify({ tokens: BigInt(1) }))],
      ['a message larger than NATS takes', NatsError.errorForCode(ErrorCode.MaxPayloadExceeded)],
      ['JetStream refusing a message for its size (400)', jetStreamError(400, 10054, 'message size exceeds maximum allowed')],
      ['a refusal of the handler (a deleted variant)', new WaggleException('resource_not_found')],
      ["a provider's failure (its own retries spent)", new WaggleException('provider_error')],
      ['a bug', new TypeError("Cannot read properties of undefined (reading 'status')")],
      ['an error nobody recognises', new Error('boom')],
      ['something thrown that is not an error', 'boom'],
      ['nothing', undefined],
    ])('%s', (_what, error) => {
      expect(isTransientFailure(error)).toBe(false);
    });

    it('does not follow a domain error’s cause: a fetch that wraps a refused connection has decided already', () => {
      const fetchFailure = Object.assign(
        new Error('could not fetch https://example.com/a.pdf: connection refused', { cause: systemError('ECONNREFUSED') }),
        { name: 'AttachmentFetchError', code: 'network' },
      );
      expect(isTransientFailure(fetchFailure)).toBe(false);
    });
  });
});

describe('describeFailure', () => {
  it('names the SQLSTATE and the detail, never the statement or its parameters', () => {
    const error = new QueryFailedError(
      'INSERT INTO secret_table …',
      ['{"whole":"batch"}'],
      postgresError('22P05', 'unsupported Unicode escape sequence', '\\u0000 cannot be converted to text.'),
    );
    expect(sqlStateOf(error)).toBe('22P05');
    expect(describeFailure(error)).toBe('unsupported Unicode escape sequence (\\u0000 cannot be converted to text.) [SQLSTATE 22P05]');
    expect(describeFailure(new Error('plain'))).toBe('plain');
    expect(describeFailure('text')).toBe('text');
  });
});
