import { DOMAIN_SERVICES, type DomainService } from '@waggle/contracts';
import { ConfigError, DatabaseEnv, exitOnStartupFailure, loadConfig } from '@waggle/platform';
import type { PostgresDataSourceOptions } from '@waggle/database';
import { loadLocalEnvFile } from '@waggle/telemetry';
import { generateMigration } from './generate-migration';
import { join, relative } from 'node:path';

interface ServiceDataSourceModule {
  dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions;
}

const USAGE = `usage: npm run migration:generate -- <service> <name>
  service: ${DOMAIN_SERVICES.join(', ')}
  name:    what the migration does, e.g. add-widget-count`;

// Built into dist/tools/migrate/src: the compiled apps beside it, their sources at the root.
const DIST_APPS = join(__dirname, '../../../apps');
const REPO_ROOT = join(__dirname, '../../../..');

function isService(value: string): value is DomainService {
  return (DOMAIN_SERVICES as readonly string[]).includes(value);
}

/**
 * `npm run migration:generate -- <service> <name>`: builds the service's schema from its
 * migrations in a scratch database, diffs it against the service's entities, and writes
 * the difference as a new migration registered in `migrations/index.ts`. No difference,
 * no file: it says so and exits 1, like TypeORM's own command.
 */
async function main(args: string[]): Promise<number> {
  const [service, name, ...rest] = args;
  if (!service || !name || rest.length > 0 || !isService(service)) {
    process.stderr.write(`${service && !isService(service) ? `unknown service "${service}"\n` : ''}${USAGE}\n`);
    return 64; // EX_USAGE
  }
  loadLocalEnvFile();
  const env = loadConfig(DatabaseEnv);
  // Loaded by path, as the migrate command does: a tool must not import apps.
  const { dataSourceOptions } = require(join(DIST_APPS, service, 'src/database/data-source')) as ServiceDataSourceModule;
  const migrationsDir = join(REPO_ROOT, 'apps', service, 'src/database/migrations');
  const result = await generateMigration({
    options: dataSourceOptions(env.DATABASE_URL),
    databaseUrl: env.DATABASE_URL,
    migrationsDir,
    name,
    command: `npm run migration:generate -- ${service} ${/^[\w.-]+$/.test(name) ? name : `'${name}'`}`,
  });
  if (result.status === 'no_changes') {
    process.stdout.write(`migration:generate: ${service}: no changes, its entities match its migrations; nothing written\n`);
    return 1;
  }
  process.stdout.write(
    `migration:generate: ${service}: wrote ${relative(REPO_ROOT, result.file)} (${result.up} statement(s) up, ${result.down} down) ` +
      `and registered ${result.className} in ${relative(REPO_ROOT, join(migrationsDir, 'index.ts'))}; review it, build, then npm run migrate\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) exitOnStartupFailure('migration:generate', error);
    process.stderr.write(`migration:generate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
