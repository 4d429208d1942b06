import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { LedgerRecord } from '@waggle/contracts';
import { requestContext, type NatsRpcClient } from '@waggle/platform';
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

describe('the trace id the publisher stamps on a record', () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const inTrace = <T>(id: string, work: () => T): T =>
    context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId: id, spanId: '00f067aa0ba902b7', traceFlags: 0 })), work);

  beforeAll(() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
  afterAll(() => context.disable());

  it("is the active trace's when the run is recorded, and absent outside any trace", () => {
    const publisher = unreachablePublisher();
    inTrace(traceId, () => publisher.save(record('req_traced')));
    publisher.save(record('req_untraced'));
    expect(publisher.pendingRecord('req_traced')?.trace_id).toBe(traceId);
    expect(publisher.pendingRecord('req_untraced')).not.toHaveProperty('trace_id');
  });

  it('stays the first one when a later state is saved in another trace (a cancel), and one the record names is kept', () => {
    const publisher = unreachablePublisher();
    inTrace(traceId, () => publisher.save(record('req_a')));
    inTrace('0af7651916cd43dd8448eb211c80319c', () => publisher.save({ ...record('req_a'), status: 'cancelled' }));
    expect(publisher.pendingRecord('req_a')).toMatchObject({ status: 'cancelled', trace_id: traceId });
    publisher.save({ ...record('req_b'), trace_id: traceId });
    expect(publisher.pendingRecord('req_b')?.trace_id).toBe(traceId);
  });
});

describe('the API key id the publisher stamps on a record', () => {
  const apiKeyId = '0b5c3a57-7a8e-4d8f-9d0e-3c1f5e2a9b10';

  it("is the request context's when the run is recorded, kept for later states saved without one, absent without a context", () => {
    const publisher = unreachablePublisher();
    requestContext.run({ requestId: 'req_keyed', apiKeyId }, () => publisher.save(record('req_keyed')));
    publisher.save({ ...record('req_keyed'), status: 'completed' });
    publisher.save(record('req_unkeyed'));
    expect(publisher.pendingRecord('req_keyed')).toMatchObject({ status: 'completed', api_key_id: apiKeyId });
    expect(publisher.pendingRecord('req_unkeyed')).not.toHaveProperty('api_key_id');
  });

  it('keeps the one a record names', () => {
    const publisher = unreachablePublisher();
    requestContext.run({ requestId: 'req_named', apiKeyId }, () => publisher.save({ ...record('req_named'), api_key_id: 'other' }));
    expect(publisher.pendingRecord('req_named')?.api_key_id).toBe('other');
  });
});
