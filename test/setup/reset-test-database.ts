import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './test-env';

/**
 * Once per run: drop every service schema of the test database and migrate afresh, and
 * empty the test Redis database (queues, registry, meters left by an earlier run).
 */
export default async function resetTestDatabase(): Promise<void> {
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
