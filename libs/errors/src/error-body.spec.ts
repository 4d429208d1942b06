import { toErrorBody, type ErrorBody } from './error-body';
import { errorCodes } from './error-catalog';
import { WaggleException } from './waggle.exception';

describe('toErrorBody', () => {
  it('shapes a catalog error with `error` as the alias of the localized message', () => {
    const exception = new WaggleException('model_deprecated', { params: { model: 'gpt-4-0314' } });
    const english = toErrorBody(exception, 'en') as ErrorBody;
    expect(english).toEqual({
      error: english.message,
      message: expect.stringContaining('gpt-4-0314'),
      error_code: 'model_deprecated',
      code: 'model_deprecated',
    });
    const spanish = toErrorBody(exception, 'es') as ErrorBody;
    expect(spanish.message).toContain('gpt-4-0314');
    expect(spanish.message).not.toEqual(english.message);
  });

  it('carries the deprecated `code` alias, equal to error_code, on every body but the concurrency cap, which is `error` only', () => {
    for (const code of errorCodes().filter((candidate) => candidate !== 'concurrency_limit_reached')) {
      expect(toErrorBody(new WaggleException(code), 'en')).toMatchObject({ error_code: code, code });
    }
    const cap = toErrorBody(new WaggleException('concurrency_limit_reached'), 'es');
    expect(cap).toEqual({ error: expect.any(String) });
  });

  it('puts validation_failed details in `errors` and other details in `details`', () => {
    expect(toErrorBody(new WaggleException('validation_failed', { details: [{ field: 'a' }] }), 'en')).toMatchObject({
      errors: [{ field: 'a' }],
    });
    expect(toErrorBody(new WaggleException('validation_error', { details: [{ field: 'b' }] }), 'en')).toMatchObject({
      details: [{ field: 'b' }],
    });
  });

  it("renders a specific message in the workspace's language", () => {
    const exception = new WaggleException('not_found', { detail: 'workspace_not_found' });
    expect(exception.message).toBe('Workspace not found');
    expect(toErrorBody(exception, 'en')).toEqual({
      error: 'Workspace not found',
      message: 'Workspace not found',
      error_code: 'not_found',
      code: 'not_found',
    });
    const spanish = toErrorBody(exception, 'es') as ErrorBody;
    expect(spanish.message).toBe('Espacio de trabajo no encontrado');
    const plan = new WaggleException('resource_not_found', { detail: 'plan_not_found', params: { key: 'pro' } });
    expect((toErrorBody(plan, 'es') as ErrorBody).message).toBe('Plan no encontrado: pro');
  });
});

describe('WaggleException', () => {
  it('raises a code with its usual status or a catalog alternate, and refuses any other', () => {
    expect(new WaggleException('upstream_request_failed').status).toBe(502);
    expect(new WaggleException('upstream_request_failed', { status: 504 }).status).toBe(504);
    expect(new WaggleException('validation_error', { status: 413 }).status).toBe(413);
    expect(() => new WaggleException('not_found', { status: 500 })).toThrow(TypeError);
  });

  it('survives the wire: code, status, params, details and extra fields', () => {
    const original = new WaggleException('api_rate_limit_exceeded', {
      params: { limit: 5 },
      extra: { limit: 5, current: 6 },
      details: { x: 1 },
    });
    const copy = WaggleException.fromWire(JSON.parse(JSON.stringify(original.toWire())));
    expect(copy).toBeInstanceOf(WaggleException);
    expect(copy?.toWire()).toEqual(original.toWire());
    expect(WaggleException.fromWire({ error_code: 'made_up' })).toBeUndefined();
    const specific = new WaggleException('validation_error', { detail: 'loop_over_not_list', params: { step: 's1', type: 'string' } });
    const specificCopy = WaggleException.fromWire(JSON.parse(JSON.stringify(specific.toWire())));
    expect(specificCopy?.toWire()).toEqual(specific.toWire());
    expect(specificCopy?.messageIn('es')).toBe('Bucle s1: over debe ser una lista, no string');
    expect(WaggleException.fromWire({ error_code: 'not_found', detail: 'made_up', message: 'English' })?.messageIn('en')).toBe(
      'The resource was not found for this account.',
    );
    expect(WaggleException.fromWire({ error_code: 'not_found', status: 500 })?.status).toBe(404);
  });
});
