import { hasLiveRuns, instantOfLocalInput, localInputOfInstant, microsOfUsd, parseRunsSearch, runsRequestPath } from './runs-search';

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

describe('parseRunsSearch, the model, key, metadata and cost filters', () => {
  it('keeps them, a metadata value only with its key, numbers read back as typed', () => {
    expect(
      parseRunsSearch({
        model: ' fake-chat ',
        api_key: '6F1C2B9E-0D4A-4C55-9E1B-3A2D4F5E6A7B',
        metadata_key: 'ticket',
        metadata_value: 42,
        min_cost: '0.5',
        max_cost: 2,
      }),
    ).toEqual({
      model: 'fake-chat',
      api_key: '6f1c2b9e-0d4a-4c55-9e1b-3a2d4f5e6a7b',
      metadata_key: 'ticket',
      metadata_value: '42',
      min_cost: 0.5,
      max_cost: 2,
    });
    expect(parseRunsSearch({ metadata_value: 'T-1' })).toEqual({});
    expect(parseRunsSearch({ metadata_key: 'ticket', metadata_value: '' })).toEqual({ metadata_key: 'ticket', metadata_value: '' });
  });

  it('drops a key that is not an id and a cost that is not a USD amount', () => {
    expect(parseRunsSearch({ api_key: 'wsk_secret', min_cost: '-1', max_cost: '0.0000001', model: 'm'.repeat(201) })).toEqual({});
    expect(parseRunsSearch({ min_cost: -1, max_cost: 1e-7 })).toEqual({});
  });
});

describe('microsOfUsd', () => {
  it.each([
    [0, 0],
    [0.000001, 1],
    [1.5, 1_500_000],
    [0.1, 100_000],
    [0.000009, 9],
    [123456789.999999, 123_456_789_999_999],
  ])('%d USD is %d micro-USD', (usd, micros) => expect(microsOfUsd(usd)).toBe(micros));
});

describe('hasLiveRuns', () => {
  it('is true while a queued or running run is on the page', () => {
    expect(hasLiveRuns([{ status: 'completed' }, { status: 'running' }])).toBe(true);
    expect(hasLiveRuns([{ status: 'queued' }])).toBe(true);
    expect(hasLiveRuns([{ status: 'completed' }, { status: 'failed' }, { status: 'cancelled' }])).toBe(false);
    expect(hasLiveRuns(undefined)).toBe(false);
  });
});

describe('runsRequestPath', () => {
  it('sends the new filters, the costs as micro-USD', () => {
    expect(
      runsRequestPath(
        { model: 'fake chat', api_key: 'k', metadata_key: 'ticket', metadata_value: 'T-1', min_cost: 0.01, max_cost: 2 },
        { limit: 50 },
      ),
    ).toBe(
      '/v1/private/requests?model=fake+chat&api_key=k&metadata_key=ticket&metadata_value=T-1&min_cost_micros=10000&max_cost_micros=2000000&limit=50',
    );
  });

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
