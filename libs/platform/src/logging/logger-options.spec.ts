import { redactUrl } from './logger-options';

describe('redactUrl', () => {
  it('hides credential-bearing query parameters and keeps the rest', () => {
    expect(redactUrl('/v1/prompt/webhooks/a/variants/b?secret=whsec_abc&x=1')).toBe('/v1/prompt/webhooks/a/variants/b?secret=[redacted]&x=1');
    expect(redactUrl('/x?SECRET=1')).toBe('/x?SECRET=[redacted]');
    expect(redactUrl('/v1/error_codes?locale=es')).toBe('/v1/error_codes?locale=es');
    expect(redactUrl('/health/live')).toBe('/health/live');
  });
});
