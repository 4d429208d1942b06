#!/usr/bin/env node
// The workflow bench's bare-stack leg (docs/benchmarks/workflows.md): only what any durable
// engine on PostgreSQL and BullMQ must do per run, in one process, so the engine's figures can
// be read as a fraction of what this stack allows.
//
//   POST /runs   INSERT of the run's row (autocommitted, the request body as its inputs), then
//                BullMQ `add` of its job (job id = run id); answers 200 {request_id, run_status}
//                once both are done, as the engine answers an async invoke once its run is durable.
//   a Worker     takes each job (concurrency BARE_WORKER_CONCURRENCY) and marks the row done
//                (one UPDATE); a job counts as completed when BullMQ has moved it to completed.
//   GET /stats   {completed, lastCompletedAt (ms since the epoch), notUpdated (jobs whose UPDATE
//                found no queued row), failed}.
//   GET /health  200 once the worker runs.
//
// Env: BARE_PORT, DATABASE_URL, REDIS_URL, BARE_TABLE (created and dropped by the bench),
// BARE_QUEUE, BARE_WORKER_CONCURRENCY, BARE_LOCK_MS. Job retention, attempts and backoff, the
// pool size and the worker's lock are the engine's (`workflow-runs` queue, invocation's pool of
// 10, WORKFLOW_LEASE_MS). SIGTERM closes the worker, the queue and the pool and exits 0.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Queue, Worker } = require('bullmq');
const Redis = require('ioredis');
const { Pool } = require('pg');

const env = process.env;
const table = env.BARE_TABLE;
if (!/^[a-z_][a-z0-9_]*$/.test(table ?? '')) throw new Error('BARE_TABLE must be a plain lower-case table name');
const JOB_OPTIONS = {
  removeOnComplete: { age: 24 * 3600, count: 50_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
};
const INSERT = `INSERT INTO ${table} (id, status, inputs) VALUES ($1, 'queued', $2)`;
const UPDATE = `UPDATE ${table} SET status = 'completed', ended_at = now() WHERE id = $1 AND status = 'queued'`;

const pool = new Pool({ connectionString: env.DATABASE_URL, max: 10, application_name: 'bench-bare-stack' });
const queueConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const workerConnection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue(env.BARE_QUEUE, { connection: queueConnection, defaultJobOptions: JOB_OPTIONS });
const stats = { completed: 0, lastCompletedAt: null, notUpdated: 0, failed: 0 };
const lockMs = Number(env.BARE_LOCK_MS || 30_000);
const worker = new Worker(
  env.BARE_QUEUE,
  async (job) => {
    const { rowCount } = await pool.query(UPDATE, [job.id]);
    if (rowCount !== 1) stats.notUpdated += 1;
  },
  {
    connection: workerConnection,
    concurrency: Number(env.BARE_WORKER_CONCURRENCY || 50),
    lockDuration: lockMs,
    stalledInterval: lockMs,
  },
);
worker.on('completed', () => {
  stats.completed += 1;
  stats.lastCompletedAt = Date.now();
});
worker.on('failed', () => {
  stats.failed += 1;
});
worker.on('error', (error) => process.stderr.write(`bare-stack worker: ${error.message}\n`));

function answer(res, status, body) {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function admit(text) {
  const id = randomUUID();
  await pool.query(INSERT, [id, text]);
  await queue.add('run', { request_id: id }, { jobId: id });
  return { request_id: id, run_status: 'queued' };
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/runs') {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        JSON.parse(text);
      } catch {
        answer(res, 400, { error: 'body is not JSON' });
        return;
      }
      admit(text).then(
        (run) => answer(res, 200, run),
        (error) => answer(res, 500, { error: error.message }),
      );
    } else if (req.url === '/stats') answer(res, 200, stats);
    else if (req.url === '/health') answer(res, worker.isRunning() ? 200 : 503, {});
    else answer(res, 404, {});
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(env.BARE_PORT), '127.0.0.1');

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void (async () => {
    await worker.close();
    await queue.close();
    await pool.end();
    await Promise.all([queueConnection.quit(), workerConnection.quit()]);
    process.exit(0);
  })().catch((error) => {
    process.stderr.write(`bare-stack: ${error.message}\n`);
    process.exit(1);
  });
});
