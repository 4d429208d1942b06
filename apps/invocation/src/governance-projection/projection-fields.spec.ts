import { periodEnd } from '@waggle/contracts';
import { budgetSpendKey, periodStart, projectionFields } from './projection-fields';

describe('the governance projection’s fields (the spec’s decisions on usage governance)', () => {
  it('encodes the version first, then each budget and each rate limit by its scope token', () => {
    expect(
      projectionFields({
        version: 7,
        budgets: [
          { id: 'b1', scope: 'workspace', scope_id: null, period: 'month', limit_micros: 5_000_000, thresholds: [80, 100] },
          { id: 'b2', scope: 'user', scope_id: 'a|b:c', period: 'day', limit_micros: 10, thresholds: [50] },
        ],
        rateLimits: [
          { scope: 'api_key', scope_id: 'k1', requests_per_minute: 60, tokens_per_minute: null },
          { scope: 'user', scope_id: 'ann', requests_per_minute: null, tokens_per_minute: 1000 },
        ],
      }),
    ).toEqual([
      'version',
      '7',
      'budget:ws:month',
      '5000000|b1|80,100',
      'budget:user:a|b:c:day',
      '10|b2|50',
      'limit:key:k1',
      '60|',
      'limit:user:ann',
      '|1000',
    ]);
    expect(projectionFields({ version: 0, budgets: [], rateLimits: [] })).toEqual(['version', '0']);
  });

  it('names a budget’s spend key by its scope and the period holding the time', () => {
    const at = new Date('2026-11-28T23:59:59.999Z');
    expect(budgetSpendKey('w1', { scope: 'api_key', scope_id: 'k1', period: 'day' }, at)).toBe('waggle:gov:{w1}:spend:d20261128:key:k1');
    expect(budgetSpendKey('w1', { scope: 'workspace', scope_id: null, period: 'month' }, at)).toBe('waggle:gov:{w1}:spend:m202611:ws');
  });

  it('starts a period where the previous one ended (UTC)', () => {
    const at = new Date('2026-12-31T23:30:00.000Z');
    expect(periodStart('day', at).toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(periodStart('month', at).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(periodStart('month', periodEnd('month', at)).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
