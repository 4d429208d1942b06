import { WaggleException } from '@waggle/errors';
import { APICallError, RetryError } from 'ai';
import {
  abortReason,
  attemptFailure,
  attemptFailureOf,
  IncompleteStreamError,
  isAbortError,
  providerFailure,
  safeProviderMessage,
} from './failures';
import type { ModelRoute } from './types';

const route: ModelRoute = { modelId: 'gpt-x', provider: 'openai', providerName: 'OpenAI', providerApi: 'openai', providerModelId: 'gpt-x' };

const apiError = (statusCode: number | undefined, message = 'provider says no', cause?: unknown) =>
  new APICallError({ message, url: 'http://p/v1/chat/completions', requestBodyValues: {}, statusCode, cause });

describe('providerFailure', () => {
  it.each([
    [429, 'OpenAI request failed: rate limited (HTTP 429)'],
    [500, 'OpenAI request failed: provider unavailable (HTTP 500)'],
    [401, 'OpenAI request failed: authentication failed (HTTP 401)'],
    [400, 'OpenAI request failed: request rejected (HTTP 400): provider says no'],
    [409, 'OpenAI request failed: request rejected (HTTP 409)'],
  ])('names the provider and the status of an HTTP %s', (status, message) => {
    const error = providerFailure(apiError(status), route);
    expect(error).toBeInstanceOf(WaggleException);
    expect(error).toMatchObject({ code: 'provider_error', status: 502, message, details: { provider: 'openai', status } });
  });

  it('never passes on the text of an authentication failure', () => {
    expect(providerFailure(apiError(401, 'Incorrect API key provided: sk-abc123'), route).message).not.toContain('sk-abc');
  });

  it("says why in the workspace's language too", () => {
    const retry = new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors: [apiError(503), apiError(429)] });
    expect(providerFailure(retry, route).messageIn('es')).toBe(
      'La solicitud a OpenAI falló: límite de frecuencia alcanzado (HTTP 429) tras 2 intentos',
    );
    expect(providerFailure(apiError(400), route).messageIn('es')).toBe(
      'La solicitud a OpenAI falló: solicitud rechazada (HTTP 400): provider says no',
    );
    expect(providerFailure(new IncompleteStreamError('x'), route).messageIn('es')).toBe(
      'La solicitud a OpenAI falló: la transmisión terminó antes de completarse la respuesta',
    );
  });

  it('unwraps the SDK retry error', () => {
    const retry = new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors: [apiError(503), apiError(429)] });
    expect(providerFailure(retry, route)).toMatchObject({
      message: 'OpenAI request failed: rate limited (HTTP 429) after 2 attempts',
      details: { status: 429 },
    });
  });

  it('describes connection failures and broken streams', () => {
    expect(providerFailure(apiError(undefined, 'Cannot connect to API: connect ECONNREFUSED'), route).message).toBe(
      'OpenAI request failed: could not connect',
    );
    const broken = apiError(
      200,
      'Failed to process successful response',
      Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }),
    );
    expect(providerFailure(broken, route)).toMatchObject({
      message: 'OpenAI request failed: the connection broke during the response',
      details: { provider: 'openai' },
    });
    expect(providerFailure(new IncompleteStreamError('x'), route).message).toBe(
      'OpenAI request failed: the stream ended before the answer finished',
    );
  });

  it("describes a stream's error event by its type only", () => {
    expect(providerFailure({ type: 'overloaded_error', message: 'Overloaded sk-secret' }, route).message).toBe(
      'OpenAI request failed: the stream reported overloaded_error',
    );
  });

  it('passes a WaggleException through', () => {
    const config = new WaggleException('config_error');
    expect(providerFailure(config, route)).toBe(config);
  });
});

describe('safeProviderMessage', () => {
  it('masks anything shaped like a credential and trims long text', () => {
    expect(safeProviderMessage('bad key sk-proj-abcdef and token_xyz123 here')).toBe('bad key [redacted] and [redacted] here');
    expect(safeProviderMessage('x'.repeat(300))).toBe('[redacted]');
    expect(safeProviderMessage('word '.repeat(100)).length).toBe(200);
  });
});

describe('abortReason', () => {
  it("rejects with the signal's own reason", () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(abortReason(controller.signal))).toBe(true);
    const custom = new AbortController();
    const reason = new Error('client went away');
    custom.abort(reason);
    expect(abortReason(custom.signal)).toBe(reason);
    const stringy = new AbortController();
    stringy.abort('bye');
    expect(abortReason(stringy.signal)).toMatchObject({ name: 'AbortError', message: 'bye' });
  });
});

describe('attemptFailure: what a failed call records, and whether a fallback may answer (D41)', () => {
  const connectionRefused = Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
  });
  it.each([
    ['a 429', apiError(429), { code: 'rate_limited', status: 429, switchable: true }],
    ['a 500', apiError(500), { code: 'provider_unavailable', status: 500, switchable: true }],
    ['a 529', apiError(529), { code: 'provider_unavailable', status: 529, switchable: true }],
    ['a 400', apiError(400), { code: 'provider_error', status: 400, switchable: false }],
    ['a 401', apiError(401), { code: 'provider_error', status: 401, switchable: false }],
    ['no status (no connection)', apiError(undefined), { code: 'connection_failed', switchable: true }],
    ['a refused connection', connectionRefused, { code: 'connection_failed', switchable: true }],
    ['a stream that ended early', new IncompleteStreamError('x'), { code: 'connection_failed', switchable: true }],
    [
      "Anthropic's overloaded_error event",
      { type: 'overloaded_error', message: 'busy' },
      { code: 'provider_unavailable', switchable: true },
    ],
    ["Anthropic's rate_limit_error event", { type: 'rate_limit_error' }, { code: 'rate_limited', switchable: true }],
    ["Anthropic's invalid_request_error event", { type: 'invalid_request_error' }, { code: 'provider_error', switchable: false }],
    ['anything else', new Error('boom'), { code: 'provider_error', switchable: false }],
  ])('%s', (_, error, expected) => {
    expect(attemptFailure(error)).toEqual(expected);
  });

  it('reads the last error of the SDK retries, and remembers it through providerFailure', () => {
    const retry = new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors: [apiError(500), apiError(429)] });
    expect(attemptFailure(retry)).toEqual({ code: 'rate_limited', status: 429, switchable: true });
    expect(attemptFailureOf(providerFailure(retry, route))).toEqual({ code: 'rate_limited', status: 429, switchable: true });
    expect(attemptFailureOf(new WaggleException('config_error'))).toEqual({ code: 'provider_error', switchable: false });
  });
});
