import type { LedgerRecord } from '@waggle/contracts';
import type { JobQueue } from '@waggle/platform';
import { announceRunEnd, type RunEnd, type RunEndChannels } from './announce-run-end';

const REQUEST = `req_${'a'.repeat(32)}`;
const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const DELIVERY = `msg_${'b'.repeat(32)}`;

const workflowRecord = {
  request_id: REQUEST,
  workspace_id: WORKSPACE,
  request_type: 'workflow',
  requestable_type: 'workflow_deployment',
  requestable_id: '00000000-0000-4000-8000-000000000002',
  deployment: 'brief',
  variant: 'default',
  variant_id: null,
  version_id: null,
  version: 1,
  model: null,
  status: 'completed',
  message: null,
  metadata: {},
  user: null,
  generated_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:01.000Z',
  ended_at: '2026-01-01T00:00:02.000Z',
  duration_ms: 1000,
  usage: null,
  data: { output: 'done' },
} satisfies LedgerRecord;

/** A ledger that stores (or not) and a callbacks queue that records what was added, in order. */
function channels(stored: boolean) {
  const steps: string[] = [];
  const added: Array<{ data: unknown; jobId: string }> = [];
  const ledger: RunEndChannels['ledger'] = {
    save: (record) => void steps.push(`save ${record.status}`),
    stored: async (requestId, attempts) => {
      steps.push(`stored ${requestId} ${attempts ?? 'default'}`);
      return stored;
    },
  };
  const callbacks = {
    name: 'callbacks',
    add: async (_name: string, data: unknown, options: { jobId: string }) => {
      steps.push('enqueue');
      added.push({ data, jobId: options.jobId });
    },
  } as unknown as JobQueue<'callbacks'>;
  return { channels: { ledger, callbacks }, steps, added };
}

const workflowEnd = (overrides: Partial<RunEnd> = {}): RunEnd => ({
  kind: 'workflow',
  requestId: REQUEST,
  workspaceId: WORKSPACE,
  result: { record: workflowRecord },
  callback: {
    url: 'https://example.com/hook',
    deliveryId: DELIVERY,
    owner: { kind: 'workflow_deployment', id: workflowRecord.requestable_id },
  },
  ...overrides,
});

describe('announceRunEnd', () => {
  it('saves the final record, waits for the ledger to hold it, then queues the callback by delivery id', async () => {
    const { channels: used, steps, added } = channels(true);
    await announceRunEnd(used, workflowEnd());
    expect(steps).toEqual(['save completed', `stored ${REQUEST} default`, 'enqueue']);
    expect(added).toEqual([
      {
        jobId: DELIVERY,
        data: {
          delivery_id: DELIVERY,
          workspace_id: WORKSPACE,
          request_id: REQUEST,
          event_type: 'workflow.completed',
          url: 'https://example.com/hook',
          body: { event_type: 'workflow.completed', request_id: REQUEST, data: { output: 'done' } },
          owner: { kind: 'workflow_deployment', id: workflowRecord.requestable_id },
          run_ended_at: '2026-01-01T00:00:02.000Z',
        },
      },
    ]);
  });

  it('announces nothing while the ledger does not hold the result: it throws ledger_not_published, and the job settles again', async () => {
    const { channels: used, steps, added } = channels(false);
    const read = jest.fn();
    await expect(announceRunEnd(used, workflowEnd({ kind: 'prompt', result: { saved: read }, ledgerAttempts: 3 }))).rejects.toMatchObject({
      code: 'upstream_request_failed',
      status: 503,
      params: { request_id: REQUEST },
    });
    expect(steps).toEqual([`stored ${REQUEST} 3`]);
    expect(read).not.toHaveBeenCalled();
    expect(added).toEqual([]);
  });

  it("reads a runner's saved record only once the ledger holds it, and queues nothing without a callback", async () => {
    const { channels: used, steps, added } = channels(true);
    const read = jest.fn(async () => {
      steps.push('read');
      return { status: 'failed' as const, data: null, ended_at: null };
    });
    await announceRunEnd(used, workflowEnd({ kind: 'agent', result: { saved: read }, callback: null }));
    expect(steps).toEqual([`stored ${REQUEST} default`, 'read']);
    expect(added).toEqual([]);
  });

  it('fails, queuing nothing, when the saved record is not finished', async () => {
    const { channels: used, added } = channels(true);
    const unfinished = new Error('not finished');
    await expect(
      announceRunEnd(
        used,
        workflowEnd({
          kind: 'prompt',
          result: {
            saved: () => Promise.reject(unfinished),
          },
        }),
      ),
    ).rejects.toBe(unfinished);
    expect(added).toEqual([]);
  });
});
