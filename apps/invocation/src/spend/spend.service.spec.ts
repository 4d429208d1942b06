import { WaggleException } from '@waggle/errors';
import type { SpendRepository } from './spend.repository';
import { currentMonth, SpendService } from './spend.service';

describe('spend reads: the range (the spec’s decisions on usage governance)', () => {
  const calls: Array<[string, string, Date, Date]> = [];
  const repository = {
    grouped: (workspaceId: string, groupBy: string, from: Date, to: Date) => {
      calls.push([workspaceId, groupBy, from, to]);
      return Promise.resolve([
        { key: 'a', cost_micros: 30, runs: 2 },
        { key: null, cost_micros: 0, runs: 1 },
      ]);
    },
  } as unknown as SpendRepository;
  const service = new SpendService(repository);
  const now = new Date('2028-02-10T12:00:00.000Z');

  beforeEach(() => (calls.length = 0));

  it('defaults to the current UTC month by day, both ends included, and totals the groups', async () => {
    expect(currentMonth(now)).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(await service.read('w', {}, now)).toEqual({
      group_by: 'day',
      from: '2028-02-01',
      to: '2028-02-29',
      total_cost_micros: 30,
      total_runs: 3,
      groups: [
        { key: 'a', cost_micros: 30, runs: 2 },
        { key: null, cost_micros: 0, runs: 1 },
      ],
    });
    expect(calls).toEqual([['w', 'day', new Date('2028-02-01T00:00:00.000Z'), new Date('2028-03-01T00:00:00.000Z')]]);
  });

  it('refuses a day that does not exist, a reversed range and one over 366 days', async () => {
    for (const [filter, detail] of [
      [{ from: '2027-02-29' }, 'spend_date_invalid'],
      [{ from: '2026-05-02', to: '2026-05-01' }, 'spend_range_invalid'],
      [{ from: '2025-01-01', to: '2026-01-02' }, 'spend_range_invalid'],
    ] as const) {
      const error = await service.read('w', filter, now).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WaggleException);
      expect(error).toMatchObject({ code: 'validation_error', detail });
    }
    expect(calls).toEqual([]);
  });
});
