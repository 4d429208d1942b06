import { instantOfLocalInput, localInputOfInstant, parseRunsSearch, runsRequestPath } from './runs-search';

describe('parseRunsSearch', () => {
  it('keeps the filters the API takes, trimmed', () => {
    expect(
      parseRunsSearch({
        from: '2026-01-01T00:00:00.000Z',
        to: '2026-01-02T00:00:00.000Z',
        status: 'failed',
        artifact: ' 6F1C2B9E-0D4A-4C55-9E1B-3A2D4F5E6A7B ',
        user: ' ops@example.com ',
      }),
    ).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
      status: 'failed',
      artifact: '6f1c2b9e-0d4a-4c55-9e1b-3a2d4f5e6a7b',
      user: 'ops@example.com',
    });
  });

  it('drops what is not a filter value rather than failing the page', () => {
    expect(
      parseRunsSearch({ from: 'yesterday', to: 42, status: 'exploded', artifact: '../etc', user: 'x'.repeat(257), before: 'r' }),
    ).toEqual({});
  });
});

describe('runsRequestPath', () => {
  it('names every filter, the page size and the cursor, encoded', () => {
    expect(runsRequestPath({ status: 'completed', user: 'a&b=c' }, { limit: 50, before: 'req_1' })).toBe(
      '/v1/private/requests?status=completed&user=a%26b%3Dc&limit=50&before=req_1',
    );
    expect(runsRequestPath({}, { limit: 500 })).toBe('/v1/private/requests?limit=500');
  });
});

describe('datetime-local values', () => {
  it('round-trip through an ISO instant at minute precision', () => {
    const instant = instantOfLocalInput('2026-03-04T05:06');
    expect(instant).toMatch(/^2026-03-0\dT\d\d:06:00\.000Z$/);
    expect(localInputOfInstant(instant)).toBe('2026-03-04T05:06');
  });

  it('are empty or undefined when unset or unreadable', () => {
    expect([instantOfLocalInput(''), instantOfLocalInput('nonsense'), localInputOfInstant(undefined), localInputOfInstant('x')]).toEqual([
      undefined,
      undefined,
      '',
      '',
    ]);
  });
});
