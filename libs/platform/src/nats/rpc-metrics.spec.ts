import { WaggleException } from '@waggle/errors';
import { rpcOutcomeOf } from './rpc-metrics';

describe('rpcOutcomeOf', () => {
  it('tells a refusal (4xx), a time-out (504) and a failure apart, from an exception or its wire envelope', () => {
    expect(rpcOutcomeOf(new WaggleException('validation_error'))).toBe('refused');
    expect(rpcOutcomeOf(new WaggleException('upstream_request_failed', { status: 504 }))).toBe('timeout');
    expect(rpcOutcomeOf(new WaggleException('upstream_request_failed'))).toBe('error');
    expect(rpcOutcomeOf(new WaggleException('validation_error').toWire())).toBe('refused');
    expect(rpcOutcomeOf(new Error('boom'))).toBe('error');
    expect(rpcOutcomeOf({ not: 'an envelope' })).toBe('error');
  });
});
