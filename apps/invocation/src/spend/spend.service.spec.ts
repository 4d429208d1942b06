import { WaggleException } from '@waggle/errors';
import type { SpendRepository } from './spend.repository';
import { currentMonth, seriesRange, SpendService } from './spend.service';

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

describe('usage series: the range', () => {
  const now = new Date('2028-02-10T12:34:56.789Z');

  it('defaults to the 24 hours up to now by hour, from taken down to its hour', () => {
    expect(seriesRange({}, now)).toEqual({
      from: new Date('2028-02-09T12:00:00.000Z'),
      to: now,
      bucket: 'hour',
    });
  });

  it('takes from down to its UTC day by day, and keeps to as given (excluded)', () => {
    expect(seriesRange({ from: '2028-01-11T12:34:00.000+02:00', to: '2028-02-10T00:00:00Z', bucket: 'day' }, now)).toEqual({
      from: new Date('2028-01-11T00:00:00.000Z'),
      to: new Date('2028-02-10T00:00:00.000Z'),
      bucket: 'day',
    });
  });

  it('takes 744 hourly buckets and refuses 745, a reversed and an empty range with a 422', () => {
    expect(seriesRange({ from: '2028-01-01T00:00:00Z', to: '2028-02-01T00:00:00Z' }, now).bucket).toBe('hour');
    for (const filter of [
      { from: '2028-01-01T00:00:00Z', to: '2028-02-01T00:00:01Z' },
      { from: '2028-01-02T00:00:00Z', to: '2028-01-01T00:00:00Z' },
      { from: '2028-01-01T00:00:00Z', to: '2028-01-01T00:00:00Z' },
      { from: '2020-01-01T00:00:00Z', to: '2028-01-01T00:00:00Z', bucket: 'day' as const },
    ]) {
      const error = (() => {
        try {
          return seriesRange(filter, now);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(WaggleException);
      expect(error).toMatchObject({ code: 'validation_error', detail: 'usage_series_range_invalid' });
    }
  });
});
