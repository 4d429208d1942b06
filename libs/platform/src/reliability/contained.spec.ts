import { Logger } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { requestContext } from '../context/request-context';
import { contained, reportContained } from './contained';

describe('contained', () => {
  let logged: Array<{ fields: Record<string, unknown>; message: string }>;
  let spy: jest.SpyInstance;
  beforeEach(() => {
    logged = [];
    spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((fields: unknown, message?: unknown) => {
      logged.push({ fields: fields as Record<string, unknown>, message: String(message) });
    });
  });
  afterEach(() => spy.mockRestore());

  it('keeps a throwing listener from reaching the emitter, logs it in the catalog shape with the request id, passes `this`', () => {
    const emitter = new EventEmitter();
    const seen: unknown[] = [];
    emitter.on(
      'close',
      contained(
        'a close listener',
        function (this: EventEmitter, value: number) {
          seen.push(this, value);
          throw new URIError('URI malformed');
        },
        () => 'req_from_listener',
      ),
    );
    expect(() => emitter.emit('close', 7)).not.toThrow();
    expect(seen).toEqual([emitter, 7]);
    expect(logged).toHaveLength(1);
    expect(logged[0].message).toBe('a close listener failed; contained, the process goes on');
    expect(logged[0].fields).toMatchObject({
      error_code: 'internal_server_error',
      error_id: expect.stringMatching(/^err_[0-9a-f]{16}$/),
      request_id: 'req_from_listener',
      err: expect.any(URIError),
    });
  });

  it('contains a failing promise and takes the request id from the context when none is named', async () => {
    let failed!: Promise<void>;
    const guarded = contained('a timer', () => {
      failed = Promise.reject(new Error('late'));
      return failed;
    });
    requestContext.run({ requestId: 'req_in_context' }, () => guarded());
    await failed.catch(() => undefined);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(logged).toEqual([expect.objectContaining({ fields: expect.objectContaining({ request_id: 'req_in_context' }) })]);
  });

  it('survives a request-id reader that throws and a value that cannot be stringified', () => {
    const guarded = contained(
      'a listener',
      () => {
        throw Object.assign(Object.create(null) as object, { toString: null });
      },
      () => {
        throw new Error('no id');
      },
    );
    expect(() => guarded()).not.toThrow();
    expect(logged).toHaveLength(1);
    expect(logged[0].fields.request_id).toBeUndefined();
  });

  it('reportContained never throws, even when the logger does', () => {
    spy.mockImplementation(() => {
      throw new Error('destination closed');
    });
    expect(() => reportContained('anything', new Error('x'))).not.toThrow();
  });
});
