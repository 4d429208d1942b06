import { newRequestId, requestIdTime } from './request-context';

describe('requestIdTime', () => {
  it('reads the milliseconds a request id was made at', () => {
    const before = Date.now();
    const made = requestIdTime(newRequestId());
    expect(made).not.toBeNull();
    expect(made).toBeGreaterThanOrEqual(before);
    expect(made).toBeLessThanOrEqual(Date.now());
  });

  it('answers null for what is not a request id of ours', () => {
    for (const id of ['', 'req_', 'req_0190f5a1b2c3', `req_${'0'.repeat(32)}`, 'req_0190F5A1B2C37D4E8F90A1B2C3D4E5F6', 'x'.repeat(36)]) {
      expect(requestIdTime(id)).toBeNull();
    }
  });
});
