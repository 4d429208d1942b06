import { WaggleException } from '@waggle/errors';
import { isOpenAiRequest, shouldRetry, toOpenAiError } from './openai-errors';

const request = { method: 'POST', path: '/openai/v1/chat/completions' };

describe("the OpenAI-compatible surface's errors", () => {
  it('tells its requests by path', () => {
    expect(['/openai/v1/models', '/openai/v1/x?y=1', '/openai'].map((url) => isOpenAiRequest({ url }))).toEqual([true, true, true]);
    expect(['/v1/invoke', '/openaiv1', '/v1/openai/'].map((url) => isOpenAiRequest({ url }))).toEqual([false, false, false]);
  });

  it('names the field of a validation refusal as param, with its message', () => {
    const problem = { detail: 'openai_input_missing', params: { name: 'company' } } as const;
    const answer = toOpenAiError(
      new WaggleException('validation_error', { status: 400, ...problem, details: [{ field: 'inputs.company', messages: [problem] }] }),
      'en',
      request,
    );
    expect(answer).toEqual({
      status: 400,
      headers: { 'x-should-retry': 'false' },
      body: {
        error: {
          message: 'The template variable company has no value: give it in inputs (or metadata)',
          type: 'invalid_request_error',
          param: 'inputs.company',
          code: 'validation_error',
        },
      },
    });
  });

  it("answers an unknown agent or deployment 404 model_not_found (the native routes' 422 for agents)", () => {
    const agent = toOpenAiError(new WaggleException('resource_not_found', { status: 422, detail: 'agent_not_found' }), 'en', request);
    expect(agent).toMatchObject({ status: 404, body: { error: { code: 'model_not_found', type: 'invalid_request_error' } } });
    const deployment = toOpenAiError(
      new WaggleException('resource_not_found', { detail: 'deployment_not_found', params: { name: 'x' } }),
      'es',
      request,
    );
    expect(deployment).toMatchObject({ status: 404, body: { error: { code: 'model_not_found', message: 'Despliegue no encontrado: x' } } });
  });

  it('answers an unrouted path 404 unsupported_endpoint', () => {
    expect(toOpenAiError(new WaggleException('not_found'), 'en', { method: 'POST', path: '/openai/v1/embeddings' })).toMatchObject({
      status: 404,
      body: { error: { code: 'unsupported_endpoint', message: 'POST /openai/v1/embeddings is not supported by this API' } },
    });
  });

  it.each([
    ['api_rate_limit_exceeded', 429, false],
    ['concurrency_limit_reached', 429, true],
    ['run_cancelled', 409, false],
    ['idempotency_key_in_use', 409, true],
    ['idempotency_key_reused', 422, false],
    ['unauthorized', 401, false],
    ['upstream_request_failed', 503, true],
    ['internal_server_error', 500, true],
  ] as const)('says whether a client should retry %s (%i): %s', (code, status, retry) => {
    const exception = new WaggleException(code, code === 'api_rate_limit_exceeded' ? { params: { limit: 1 } } : { status });
    expect(exception.status).toBe(status);
    expect(shouldRetry(exception)).toBe(retry);
    expect(toOpenAiError(exception, 'en', request).headers['x-should-retry']).toBe(String(retry));
  });

  it('types errors as OpenAI does', () => {
    const typeOf = (code: 'unauthorized' | 'api_rate_limit_exceeded' | 'internal_server_error') =>
      toOpenAiError(new WaggleException(code, code === 'api_rate_limit_exceeded' ? { params: { limit: 1 } } : {}), 'en', request).body.error
        .type;
    expect([typeOf('unauthorized'), typeOf('api_rate_limit_exceeded'), typeOf('internal_server_error')]).toEqual([
      'authentication_error',
      'rate_limit_error',
      'server_error',
    ]);
  });
});
