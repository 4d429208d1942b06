import type { LedgerRecord } from '@waggle/contracts';
import type { NatsRpcClient } from '../nats/nats-rpc.client';
import { LedgerPublisher } from './ledger-publisher';

/** A publisher whose stream is out of reach (no connection): records wait, as in an outage. */
function unreachablePublisher(): LedgerPublisher {
  return new LedgerPublisher({ connection: () => undefined } as unknown as NatsRpcClient, { maxPendingRecords: 10 });
}

const record = (requestId: string) => ({ request_id: requestId, workspace_id: null, status: 'running' }) as unknown as LedgerRecord;

describe('the ledger lag the publisher reports', () => {
  it('is 0 while nothing waits', () => {
    const publisher = unreachablePublisher();
    expect(publisher.pending).toBe(0);
    expect(publisher.lagSeconds()).toBe(0);
  });

  it("is the oldest waiting record's age, kept across newer states of the same record", () => {
    const publisher = unreachablePublisher();
    const first = Date.now();
    publisher.save(record('req_a'));
    publisher.save(record('req_b'));
    publisher.save(record('req_a'));
    expect(publisher.pending).toBe(2);
    expect(publisher.lagSeconds(first + 5_000)).toBeGreaterThanOrEqual(4.9);
    expect(publisher.lagSeconds(first + 5_000)).toBeLessThanOrEqual(5 + (Date.now() - first) / 1000);
  });
});
