import { deliveriesFilter, parseWebhooksSearch } from './webhooks-search';

const REQUEST = `req_${'a1'.repeat(16)}`;

describe("the Webhooks screen's URL", () => {
  it('keeps a known tab, status and a well-formed request id', () => {
    expect(
      parseWebhooksSearch({ tab: 'dead-letters', status: 'succeeded', request_id: ` ${REQUEST.toUpperCase().replace('REQ_', 'req_')} ` }),
    ).toEqual({
      tab: 'dead-letters',
      status: 'succeeded',
      request_id: REQUEST,
    });
  });

  it('drops what the API would refuse instead of showing an error page', () => {
    expect(parseWebhooksSearch({ tab: 'nope', status: 'failed', request_id: 'req_123' })).toEqual({});
    expect(parseWebhooksSearch({ tab: 3, status: null, request_id: ['x'] })).toEqual({});
  });

  it('reads the dead letters as the log filtered on dead_lettered, whatever status the URL holds', () => {
    expect(deliveriesFilter({ tab: 'dead-letters', status: 'succeeded' })).toEqual({ status: 'dead_lettered' });
    expect(deliveriesFilter({ tab: 'dead-letters', request_id: REQUEST })).toEqual({ status: 'dead_lettered', request_id: REQUEST });
    expect(deliveriesFilter({ status: 'pending', request_id: REQUEST })).toEqual({ status: 'pending', request_id: REQUEST });
    expect(deliveriesFilter({})).toEqual({});
  });
});
