import { RUN_CANCEL_SUBJECT, type CancelRunMessage, type RunCancelReply } from '@waggle/contracts';
import type { Subscription } from 'nats';
import type { NatsRpcClient } from '@waggle/platform';
import { isCancelledByRequest, REMEMBERED_CANCELS, RunCancellation, RunCancelled } from './run-cancellation';

/** What RunCancellation uses of NATS: one subscription it hears messages on, and publish. */
function harness() {
  let heard: ((message: CancelRunMessage, reply?: (value: unknown) => void) => void) | undefined;
  const published: unknown[] = [];
  const rpc = {
    subscribe: (subject: string, handler: typeof heard) => {
      expect(subject).toBe(RUN_CANCEL_SUBJECT);
      heard = handler;
      return { unsubscribe: () => undefined } as unknown as Subscription;
    },
    publish: (_subject: string, payload: unknown) => published.push(payload),
  } as unknown as NatsRpcClient;
  const cancellation = new RunCancellation(rpc);
  cancellation.onApplicationBootstrap();
  const replies: RunCancelReply[] = [];
  return {
    cancellation,
    published,
    replies,
    /** A cancel request (with a reply subject) as the canceller sends it. */
    cancel: (requestId: string) =>
      heard?.({ request_id: requestId, reason: 'cancelled' }, (value) => replies.push(value as RunCancelReply)),
    /** A disconnect notice as the gateway publishes it (older gateways send no reason). */
    disconnect: (requestId: string, reason?: 'disconnected') => heard?.({ request_id: requestId, ...(reason && { reason }) }),
  };
}

describe('RunCancellation', () => {
  it('aborts the run it holds on a cancel request, and replies once the run says how it settled', () => {
    const { cancellation, cancel, replies } = harness();
    const tracked = cancellation.track('req_a');
    cancel('req_a');
    expect(tracked.signal.aborted).toBe(true);
    expect(tracked.cancelled).toBe(true);
    expect(isCancelledByRequest(tracked.signal)).toBe(true);
    expect(replies).toEqual([]);
    tracked.done('cancelled');
    expect(replies).toEqual([{ run_status: 'cancelled' }]);
  });

  it('answers the status the run settled in, so a run that completed meanwhile is reported completed', () => {
    const { cancellation, cancel, replies } = harness();
    const tracked = cancellation.track('req_b');
    cancel('req_b');
    tracked.done('completed');
    tracked.done('failed');
    expect(replies).toEqual([{ run_status: 'completed' }]);
  });

  it('stays silent about runs it does not hold, but aborts at once one that registers after its cancel', () => {
    const { cancellation, cancel, replies } = harness();
    cancel('req_late');
    expect(replies).toEqual([]);
    const late = cancellation.track('req_late');
    expect(late.signal.aborted).toBe(true);
    expect(late.cancelled).toBe(true);
    // Another run is not affected.
    expect(cancellation.track('req_other').signal.aborted).toBe(false);
  });

  it('tells a disconnect (with or without its reason) from a cancel: aborted, not cancelled, and not remembered', () => {
    const { cancellation, disconnect } = harness();
    const first = cancellation.track('req_c');
    disconnect('req_c', 'disconnected');
    expect(first.signal.aborted).toBe(true);
    expect(first.cancelled).toBe(false);
    expect(first.signal.reason).toBeInstanceOf(RunCancelled);
    const legacy = cancellation.track('req_d');
    disconnect('req_d');
    expect(legacy.cancelled).toBe(false);
    expect(legacy.signal.aborted).toBe(true);
    // A disconnect is not remembered: the id is not refused later.
    expect(cancellation.track('req_unseen').signal.aborted).toBe(false);
    disconnect('req_unseen');
    first.done();
    expect(cancellation.track('req_c').signal.aborted).toBe(false);
  });

  it('remembers a bounded number of cancelled ids: the oldest are forgotten first', () => {
    const { cancellation, cancel } = harness();
    for (let index = 0; index <= REMEMBERED_CANCELS.max; index += 1) cancel(`req_${index}`);
    expect(cancellation.track('req_0').signal.aborted).toBe(false);
    expect(cancellation.track('req_1').signal.aborted).toBe(true);
    expect(cancellation.track(`req_${REMEMBERED_CANCELS.max}`).signal.aborted).toBe(true);
  });

  it('asks other services to cancel a sub-run by publishing a cancel without waiting', () => {
    const { cancellation, published } = harness();
    cancellation.cancelElsewhere('req_child');
    expect(published).toEqual([{ request_id: 'req_child', reason: 'cancelled' }]);
  });
});
