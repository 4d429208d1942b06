import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerStream } from '@waggle/contracts';
import Redis from 'ioredis';
import { BaseEnv, loadConfig, natsConnectionOptions } from '@waggle/platform';
import { connect } from 'nats';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/** Run records an earlier run left in the ledger stream would land in this run's fresh database. */
async function purgeLedgerStream(): Promise<void> {
  const connection = await connect(natsConnectionOptions(loadConfig(BaseEnv)));
  try {
    const manager = await connection.jetstreamManager();
    await manager.streams.purge(LedgerStream.name).catch((error: unknown) => {
      if (!(error instanceof Error && /stream not found/i.test(error.message))) throw error;
    });
  } finally {
    await connection.close();
  }
}

/**
 * Once per run: drop every service schema of the test database and migrate afresh, empty the
 * test Redis database (queues, registry, meters left by an earlier run) and the ledger stream.
 */
export default async function resetTestDatabase(): Promise<void> {
  await purgeLedgerStream();
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.flushdb();
  await redis.quit();
  const root = join(__dirname, '../..');
  const migrate = join(root, 'dist/tools/migrate/src/main.js');
  if (!existsSync(migrate)) throw new Error('dist/ is missing: run `npm run build` before the integration and e2e tiers');
  execFileSync(process.execPath, [migrate, '--reset'], {
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
