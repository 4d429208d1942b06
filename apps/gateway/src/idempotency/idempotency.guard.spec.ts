import { refusedBeforeRun, requestFingerprint } from './idempotency.guard';

describe('requestFingerprint', () => {
  it('ignores key order at every depth', () => {
    const one = requestFingerprint('POST', '/v1/prompt/invoke', { a: 1, b: { c: [1, { d: 2, e: 3 }], f: null } });
    const two = requestFingerprint('POST', '/v1/prompt/invoke', { b: { f: null, c: [1, { e: 3, d: 2 }] }, a: 1 });
    expect(one).toBe(two);
  });

  it('tells apart another value, another array order, another route and another method', () => {
    const base = requestFingerprint('POST', '/v1/prompt/invoke', { a: [1, 2] });
    expect(requestFingerprint('POST', '/v1/prompt/invoke', { a: [2, 1] })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/prompt/invoke', { a: [1, 2, 3] })).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/invoke', { a: [1, 2] })).not.toBe(base);
    expect(requestFingerprint('PUT', '/v1/prompt/invoke', { a: [1, 2] })).not.toBe(base);
  });

  it('hashes a missing body like null', () => {
    expect(requestFingerprint('POST', '/x', undefined)).toBe(requestFingerprint('POST', '/x', null));
  });
});

describe('refusedBeforeRun', () => {
  it('frees the key for client errors and unaccepted runs, keeps runs that started', () => {
    expect(refusedBeforeRun(404, { error_code: 'resource_not_found' })).toBe(true);
    expect(refusedBeforeRun(422, { error_code: 'validation_error' })).toBe(true);
    expect(refusedBeforeRun(429, { error_code: 'api_rate_limit_exceeded' })).toBe(true);
    expect(refusedBeforeRun(503, { error_code: 'upstream_request_failed' })).toBe(true);
    expect(refusedBeforeRun(409, { error_code: 'run_cancelled' })).toBe(false);
    expect(refusedBeforeRun(200, { response: 'x' })).toBe(false);
    expect(refusedBeforeRun(202, { run_status: 'running' })).toBe(false);
    expect(refusedBeforeRun(502, { error_code: 'provider_error' })).toBe(false);
    expect(refusedBeforeRun(504, { error_code: 'upstream_request_failed' })).toBe(false);
    expect(refusedBeforeRun(500, { error_code: 'internal_server_error' })).toBe(false);
  });
});
