import { QueueNames } from '@waggle/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { BatchedEnqueue, type JobQueue } from '../src';

/**
 * BatchedEnqueue against the test Redis: jobs added by many callers at once are stored in bulk
 * adds, each with its own delay and the queue's job options, each caller answered once its job
 * is stored; an id already queued stays one job.
 */
describe('BatchedEnqueue', () => {
  let redis: Redis;
  let queue: Queue;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL as string, { maxRetriesPerRequest: 1 });
    queue = new Queue(QueueNames.workflowRuns, {
      connection: redis,
      prefix: `batched-${randomUUID()}`,
      defaultJobOptions: { attempts: 8 },
    });
  });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  });

  it('stores every job of concurrent callers, delayed ones delayed, and a repeated id once', async () => {
    const jobs = new BatchedEnqueue(queue as unknown as JobQueue<'workflow-runs'>, { maxBatch: 8, maxInFlight: 1 });
    const ids = Array.from({ length: 30 }, (_, index) => `req_${index}`);
    await Promise.all(
      ids.map((id, index) => jobs.add(id, { request_id: id, workspace_id: 'w' }, index % 3 === 0 ? { delayMs: 60_000 } : {})),
    );
    await jobs.add('req_1', { request_id: 'req_1', workspace_id: 'again' });

    const counts = await queue.getJobCounts('waiting', 'delayed');
    expect(counts).toEqual({ waiting: 20, delayed: 10 });
    const delayed = await queue.getJob('req_3');
    expect(delayed?.opts.delay).toBe(60_000);
    expect(await delayed?.isDelayed()).toBe(true);
    const first = await queue.getJob('req_1');
    expect(first?.data).toEqual({ request_id: 'req_1', workspace_id: 'w' });
    // The queue's own job options come with a bulk add as with a single one.
    expect(first?.opts.attempts).toBe(8);
    expect(delayed?.opts.attempts).toBe(8);
  });
});
