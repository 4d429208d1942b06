import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from './test-env';

/** Once per run: drop every service schema of the test database and migrate afresh. */
export default function resetTestDatabase(): void {
  const root = join(__dirname, '../..');
  const migrate = join(root, 'dist/tools/migrate/src/main.js');
  if (!existsSync(migrate)) throw new Error('dist/ is missing: run `npm run build` before the integration and e2e tiers');
  execFileSync(process.execPath, [migrate, '--reset'], {
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
