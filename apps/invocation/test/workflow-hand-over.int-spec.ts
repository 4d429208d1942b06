import { getQueueToken } from '@nestjs/bullmq';
import { InvocationPatterns, QueueNames, type CallbackDeliveryJob, type WorkflowRunRequest } from '@waggle/contracts';
import { newRequestId, type JobQueue } from '@waggle/platform';
import { deliveryIdFor } from '@waggle/webhooks';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { expectEventually, freePort, startOwnRedis, startServiceUnderTest, type OwnServer, type ServiceUnderTest } from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap } from '../src/bootstrap';

/**
 * An async workflow run executed where it was admitted while Redis is away (on a Redis of the
 * test's own, stopped and started again): its safety-net job cannot be queued, it ends, and its
 * callback cannot be queued either. Its terminal move is made, so no reaper takes it back: the
 * replica keeps trying to queue its job until Redis is back, and the job then announces it. Found
 * by the chaos tier, where such a run's callback never came.
 */
describe('invocation service: a workflow run handed over while Redis is away', () => {
  const workspaceId = randomUUID();
  const dir = mkdtempSync(join(tmpdir(), 'waggle-hand-over-'));
  let redis: OwnServer;
  let service: ServiceUnderTest;

  beforeAll(async () => {
    const own = await startOwnRedis(await freePort(), dir);
    redis = own.server;
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'silent', REDIS_URL: own.url });
    await service.send(InvocationPatterns.applyWorkflows, {
      workspace_id: workspaceId,
      workflows: [
        {
          deployment: 'hand-over',
          variants: [
            { name: 'default', inputs: {}, output: '{{ t.output }}', steps: [{ id: 't', type: 'template', text: 'handed over' }] },
          ],
        },
      ],
    });
  });

  afterAll(async () => {
    await service?.stop();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('queues its job once Redis is back, and the job queues its callback', async () => {
    await redis.stop();
    const requestId = newRequestId();
    const run: WorkflowRunRequest = {
      workspace_id: workspaceId,
      request_id: requestId,
      deployment: 'hand-over',
      variant: 'default',
      async: { enabled: true, callback_url: 'https://hooks.example.com/runs' },
      limits: { concurrency: 5, steps_per_run: 10, tool_calls_per_day: null },
    };
    expect(await service.send(InvocationPatterns.invokeWorkflow, run)).toMatchObject({ request_id: requestId, run_status: 'running' });
    await expectEventually(async () =>
      expect(await service.send(InvocationPatterns.getWorkflowRun, { workspace_id: workspaceId, request_id: requestId })).toMatchObject({
        run_status: 'completed',
      }),
    );
    await redis.start();
    const callbacks = service.app.get<JobQueue<'callbacks'>>(getQueueToken(QueueNames.callbacks));
    const callback = await expectEventually(
      async () => {
        const job = await callbacks.getJob(deliveryIdFor(requestId));
        if (!job) throw new Error('no callback queued yet');
        return job.data as CallbackDeliveryJob;
      },
      { timeoutMs: 30_000 },
    );
    expect(callback).toMatchObject({
      request_id: requestId,
      event_type: 'workflow.completed',
      body: { event_type: 'workflow.completed', request_id: requestId, data: { output: 'handed over' } },
    });
  });
});
