import { getQueueToken } from '@nestjs/bullmq';
import { QueueNames, type CallbackDeliveryJob, type PromptTriggerJob } from '@waggle/contracts';
import { newRequestId, STALLS_BEFORE_DEAD_LETTER, type JobQueue } from '@waggle/platform';
import { deliveryIdFor } from '@waggle/webhooks';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { expectEventually, startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { bootstrap } from '../src/bootstrap';
import { PromptTriggerWorker } from '../src/prompt-runs/prompt-trigger.worker';

/**
 * A prompt trigger whose job is dead-lettered however it got there (here: BullMQ's own verdict on
 * a job whose replicas were lost too often while they held it, the reason its stalled-job check
 * writes on the job) over the invocation service's real queue, worker and ledger: its run is
 * failed in the ledger and announced, so its caller's callback says `prompt.failed` rather than
 * nothing ever arriving.
 */
describe('a dead-lettered prompt trigger', () => {
  let service: ServiceUnderTest;
  let runs: JobQueue<'prompt-runs'>;
  let callbacks: JobQueue<'callbacks'>;
  const redis = new Redis(process.env.REDIS_URL as string);

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'silent' });
    runs = service.app.get(getQueueToken(QueueNames.promptRuns));
    callbacks = service.app.get(getQueueToken(QueueNames.callbacks));
  });

  afterAll(async () => {
    await runs?.resume();
    await service?.stop();
    redis.disconnect();
  });

  it('is failed in the ledger and its callback queued as prompt.failed', async () => {
    const trigger: PromptTriggerJob = {
      request_id: newRequestId(),
      workspace_id: randomUUID(),
      prompt_endpoint_id: randomUUID(),
      variant_id: randomUUID(),
      version_id: randomUUID(),
      inputs: { question: 'lost twice' },
      metadata: {},
      user: null,
      callback_url: 'https://hooks.example.com/runs',
      accepted_at: new Date().toISOString(),
    };
    // Paused, the job waits untaken while it is marked as BullMQ's stalled-job check marks a job
    // stalled more often than allowed; the worker then fails it for that when it takes it.
    await runs.pause();
    await runs.add('run', trigger, { jobId: trigger.request_id });
    await redis.hset(runs.toKey(trigger.request_id), 'defa', 'job stalled more than allowable limit');
    await runs.resume();

    const callback = await expectEventually(async () => {
      const job = await callbacks.getJob(deliveryIdFor(trigger.request_id));
      if (!job) throw new Error('no callback queued yet');
      return job.data as CallbackDeliveryJob;
    });
    expect(callback).toMatchObject({
      delivery_id: deliveryIdFor(trigger.request_id),
      request_id: trigger.request_id,
      workspace_id: trigger.workspace_id,
      url: trigger.callback_url,
      event_type: 'prompt.failed',
      owner: { kind: 'prompt_deployment', id: trigger.prompt_endpoint_id },
      body: { event_type: 'prompt.failed', request_id: trigger.request_id, data: { error_code: 'internal_server_error' } },
    });
    const dead = await runs.getJob(trigger.request_id);
    expect(await dead?.getState()).toBe('failed');
    expect(dead?.failedReason).toBe('job stalled more than allowable limit');
  });

  it('is dead-lettered for stalling only after its replicas were lost more often than STALLS_BEFORE_DEAD_LETTER, not on the second loss', () => {
    expect(STALLS_BEFORE_DEAD_LETTER).toBeGreaterThan(1);
    expect(service.app.get(PromptTriggerWorker).worker.opts.maxStalledCount).toBe(STALLS_BEFORE_DEAD_LETTER);
  });
});
