import { DOMAIN_SERVICES } from '@waggle/contracts';
import { DatabaseEnv, exitOnStartupFailure, loadConfig, migrateAll, type PostgresDataSourceOptions, type ServiceMigrationTarget } from '@waggle/platform';
import { loadLocalEnvFile } from '@waggle/telemetry';
import { join } from 'node:path';

interface ServiceDataSourceModule {
  dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions;
}

/**
 * Each service's data-source file, the same one its app and the TypeORM CLI use. It is
 * loaded by path, like `typeorm -d <data-source>`, because a tool must not import apps.
 */
function loadTargets(databaseUrl: string): ServiceMigrationTarget[] {
  const appsDir = join(__dirname, '../../../apps');
  return DOMAIN_SERVICES.map((service) => {
    const module = require(join(appsDir, service, 'src/database/data-source')) as ServiceDataSourceModule;
    return { service, options: module.dataSourceOptions(databaseUrl) };
  });
}

async function main(): Promise<void> {
  loadLocalEnvFile();
  const env = loadConfig(DatabaseEnv);
  const reset = process.argv.includes('--reset');
  const started = Date.now();
  await migrateAll(env.DATABASE_URL, loadTargets(env.DATABASE_URL), {
    reset,
    log: (line) => process.stdout.write(`migrate: ${line}\n`),
  });
  process.stdout.write(`migrate: done in ${Date.now() - started} ms\n`);
}

main().catch((error: unknown) => exitOnStartupFailure('migrate', error));
