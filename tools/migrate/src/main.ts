import { DOMAIN_SERVICES } from '@waggle/contracts';
import { ConfigError, DatabaseEnv, exitOnStartupFailure, loadConfig, WithWebhookSecretKey } from '@waggle/platform';
import {
  migrateAll,
  migrationStatus,
  type MigrationStatus,
  type PostgresDataSourceOptions,
  type ServiceMigrationTarget,
} from '@waggle/database';
import { loadLocalEnvFile } from '@waggle/telemetry';
import { SecretSealer } from '@waggle/webhooks';
import { Command, CommanderError } from 'commander';
import { join } from 'node:path';
import { resealWebhookSecrets } from './reseal-webhook-secrets';

class ResealEnv extends WithWebhookSecretKey(DatabaseEnv) {}

interface ServiceDataSourceModule {
  dataSourceOptions(databaseUrl: string): PostgresDataSourceOptions;
}

/** `migrate status` exit codes (the CLI's scheme): 0 nothing pending, 1 pending, 64 usage, 69 PostgreSQL unreachable, 78 configuration. */
const STATUS_EXIT = { upToDate: 0, pending: 1, usage: 64, unavailable: 69, config: 78 } as const;

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

async function runMigrations(options: { reset?: boolean }): Promise<void> {
  const env = loadConfig(DatabaseEnv);
  const started = Date.now();
  await migrateAll(env.DATABASE_URL, loadTargets(env.DATABASE_URL), {
    reset: Boolean(options.reset),
    log: (line) => process.stdout.write(`migrate: ${line}\n`),
  });
  process.stdout.write(`migrate: done in ${Date.now() - started} ms\n`);
}

function printStatus(statuses: MigrationStatus[]): void {
  const rows = statuses.flatMap(({ service, schema, applied, pending, unknown }) => [
    ...applied.map((name) => [service, schema, 'applied', name]),
    ...pending.map((name) => [service, schema, 'pending', name]),
    ...unknown.map((name) => [service, schema, 'newer', name]),
  ]);
  const table = [['SERVICE', 'SCHEMA', 'STATE', 'MIGRATION'], ...rows];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  process.stdout.write(
    table
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n',
  );
  for (const { service, applied, pending, unknown } of statuses) {
    const newer = unknown.length > 0 ? `, ${unknown.length} newer (applied by a later version)` : '';
    process.stdout.write(`${service}: ${applied.length} applied, ${pending.length} pending${newer}\n`);
  }
}

/** Prints what `migrate` would apply; the exit code says whether anything is pending. */
async function showStatus(options: { json?: boolean }): Promise<number> {
  let env: DatabaseEnv;
  try {
    env = loadConfig(DatabaseEnv);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`migrate status: invalid configuration: ${error.problems.join('; ')}\n`);
    return STATUS_EXIT.config;
  }
  let statuses: MigrationStatus[];
  try {
    statuses = await migrationStatus(env.DATABASE_URL, loadTargets(env.DATABASE_URL));
  } catch (error) {
    process.stderr.write(`migrate status: cannot read the migrations tables: ${error instanceof Error ? error.message : String(error)}\n`);
    return STATUS_EXIT.unavailable;
  }
  if (options.json) process.stdout.write(`${JSON.stringify(statuses)}\n`);
  else printStatus(statuses);
  return statuses.some((status) => status.pending.length > 0) ? STATUS_EXIT.pending : STATUS_EXIT.upToDate;
}

/** After a WEBHOOK_SECRET_KEY rotation (new key first): every stored secret sealed under the new key, so the old one can go. */
async function resealSecrets(options: { dryRun?: boolean }): Promise<number> {
  const env = loadConfig(ResealEnv);
  const sealer = SecretSealer.fromEnv(env);
  let reports;
  try {
    reports = await resealWebhookSecrets(env.DATABASE_URL, sealer, { dryRun: options.dryRun });
  } catch (error) {
    // One line naming the row (never a secret); that table is left as it was.
    process.stderr.write(`reseal: failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  for (const { table, rows, resealed } of reports) {
    process.stdout.write(
      `reseal: ${table}: ${rows} row(s), ${resealed} sealed value(s) ${options.dryRun ? 'would be ' : ''}sealed again under key ${sealer.sealingKeyId}\n`,
    );
  }
  const total = reports.reduce((sum, report) => sum + report.resealed, 0);
  process.stdout.write(
    options.dryRun
      ? `reseal: dry run, nothing written (${total} to reseal)\n`
      : `reseal: done, ${total} resealed; every stored webhook secret and MCP server header is now sealed under key ${sealer.sealingKeyId}. Restart invocation and agent (or wait WEBHOOK_REGISTRY_RESYNC_SECONDS) so the Redis registry is rewritten, then drop the older keys from WEBHOOK_SECRET_KEY\n`,
  );
  return 0;
}

async function main(argv: string[]): Promise<number> {
  loadLocalEnvFile();
  let exitCode = 0;
  const program = new Command('migrate').description("every service's database migrations, each in its own schema").exitOverride();
  program
    .command('run', { isDefault: true })
    .description('apply every pending migration, creating the database if missing (the default)')
    .option('--reset', 'drop every service schema first (only a database whose name ends in _test)')
    .action(runMigrations);
  program
    .command('status')
    .description('list applied and pending migrations per service, changing nothing')
    .option('--json', 'print JSON for scripts')
    .addHelpText('after', '\nExit codes: 0 nothing pending, 1 migrations pending, 64 usage, 69 PostgreSQL unreachable, 78 configuration.')
    .action(async (options: { json?: boolean }) => {
      exitCode = await showStatus(options);
    });
  program
    .command('reseal-webhook-secrets')
    .description(
      'after a WEBHOOK_SECRET_KEY rotation (new key first, old keys after it): seal every stored webhook secret (and MCP server headers) again under the first key',
    )
    .option('--dry-run', 'count what would be resealed, write nothing')
    .action(async (options: { dryRun?: boolean }) => {
      exitCode = await resealSecrets(options);
    });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : STATUS_EXIT.usage;
    throw error;
  }
  return exitCode;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => exitOnStartupFailure('migrate', error),
);
