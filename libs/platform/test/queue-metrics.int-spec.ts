import { QueueNames } from '@waggle/contracts';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { countDeadLettersWith, QueueDeadLetters, readQueue, type JobQueue } from '../src';
import { expectEventually } from '@waggle/testing';

/**
 * What `waggle_queue_jobs` and `waggle_queue_oldest_waiting_age_seconds` read at scrape
 * time, against a real BullMQ queue in Redis (a prefix of its own).
 */
describe('queue gauges read from Redis', () => {
  const prefix = `metrics-${randomUUID()}`;
  const name = QueueNames.callbacks;
  let redis: Redis;
  let queue: Queue;

  beforeAll(async () => {
    // The test Redis database (test/setup/test-env.ts sets REDIS_URL).
    redis = new Redis(process.env.REDIS_URL as string, { maxRetriesPerRequest: null });
    queue = new Queue(name, { connection: redis, prefix });
    // One job fails on its only attempt: the failed set.
    await queue.add('doomed', { n: 0 }, { attempts: 1 });
    const workerConnection = redis.duplicate({ maxRetriesPerRequest: null });
    const worker = new Worker(
      name,
      async () => {
        throw new Error('refused on purpose');
      },
      { connection: workerConnection, prefix },
    );
    await expectEventually(async () => expect(await queue.getFailedCount()).toBe(1));
    await worker.close();
    workerConnection.disconnect();
  });

  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  });

  it('counts each state and ages the oldest waiting job from when it was added', async () => {
    const now = Date.now();
    await queue.add('older', { n: 1 }, { timestamp: now - 60_000 });
    await queue.add('newer', { n: 2 }, { timestamp: now - 1_000 });
    await queue.add('later', { n: 3 }, { delay: 3_600_000 });
    const reading = await readQueue(name, { queue, redis }, now);
    expect(reading.counts).toEqual({ waiting: 2, active: 0, delayed: 1, failed: 1, dead_lettered: 1 });
    expect(reading.oldestWaitingAgeSeconds).toBe(60);
  });

  it("takes dead letters from the owner's count when it has one: a failed job redelivered since is no dead letter", async () => {
    // An owner whose rules keep none of the failed jobs (as a redelivered callback's).
    class NoneStillDead extends QueueDeadLetters<typeof name> {
      protected override stillDead(): Promise<never[]> {
        return Promise.resolve([]);
      }
    }
    const stillDead = new NoneStillDead(queue as JobQueue<typeof name>);
    try {
      expect(await stillDead.count()).toBe(0);
      expect((await readQueue(name, { queue, redis })).counts).toMatchObject({ failed: 1, dead_lettered: 0 });
    } finally {
      await stillDead.close();
    }
    // Closed: back to the failed set as it is.
    expect((await readQueue(name, { queue, redis })).counts.dead_lettered).toBe(1);
    const stop = countDeadLettersWith(name, async () => 7);
    expect((await readQueue(name, { queue, redis })).counts.dead_lettered).toBe(7);
    stop();
  });

  it('reports no waiting age when nothing waits', async () => {
    await queue.drain();
    expect((await readQueue(name, { queue, redis })).oldestWaitingAgeSeconds).toBe(0);
  });
});
