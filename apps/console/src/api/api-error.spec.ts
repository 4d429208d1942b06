import { apiErrorOf, traceIdOf } from './api-error';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('apiErrorOf', () => {
  it("reads the catalog's message and code, and the trace id of the answer's traceparent", () => {
    const error = apiErrorOf(
      401,
      { error: 'Invalid API key.', message: 'Invalid API key.', error_code: 'invalid_api_key', code: 'invalid_api_key' },
      headers({ traceparent: TRACEPARENT }),
    );
    expect({ ...error, message: error.message }).toEqual({
      name: 'ApiError',
      status: 401,
      message: 'Invalid API key.',
      errorCode: 'invalid_api_key',
      requestId: null,
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    });
  });

  it('reads the bare {error} body and an x-request-id header', () => {
    const error = apiErrorOf(429, { error: 'Too many concurrent requests' }, headers({ 'x-request-id': 'req_1' }));
    expect([error.message, error.errorCode, error.requestId]).toEqual(['Too many concurrent requests', null, 'req_1']);
  });

  it("names the run when the body does (an error about a run), the header's id first", () => {
    const body = { error: 'The run failed.', message: 'The run failed.', error_code: 'run_failed', request_id: 'run_7' };
    expect(apiErrorOf(422, body, headers({})).requestId).toBe('run_7');
    expect(apiErrorOf(422, body, headers({ 'x-request-id': 'req_1' })).requestId).toBe('req_1');
  });

  it("names the status when the body is not the catalog's (a proxy's page)", () => {
    expect(apiErrorOf(502, '<html>Bad gateway</html>', headers({})).message).toBe('The server answered 502.');
  });
});

describe('traceIdOf', () => {
  it.each([null, '', 'garbage', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', `${TRACEPARENT}-extra`])(
    'answers null for %p',
    (value) => expect(traceIdOf(value)).toBeNull(),
  );
});
