import { APP_NAMES, DEAD_LETTER_SOURCES_BY_OWNER, QueueNames, type AppName } from '@waggle/contracts';
import { DatabaseEnv, describeEnv, loadAppEnvClass, WithWebhookSecretKey } from '@waggle/platform';

export interface ManifestVariable {
  name: string;
  secret: boolean;
}

export interface AppEnvManifest {
  /** Per app: the variables its env class declares, and the BullMQ queues its workers consume. */
  apps: Record<AppName, { env: ManifestVariable[]; queues: string[] }>;
  /**
   * What `migrate` reads: DATABASE_URL, and WEBHOOK_SECRET_KEY for the migration that seals
   * webhook secrets; not BaseEnv's NATS variables, since it connects to PostgreSQL only.
   */
  migrate: { env: ManifestVariable[] };
}

const QUEUE_NAMES = new Set<string>(Object.values(QueueNames));

/**
 * The chart's per-app environment manifest (deploy/helm/waggle/files/app-env.json), generated
 * from the env classes so that each app's ConfigMap, Secret and NetworkPolicy hold only what
 * that app reads.
 */
export function renderAppEnvManifest(appsDir: string): string {
  const apps = {} as AppEnvManifest['apps'];
  for (const app of APP_NAMES) {
    const declared = describeEnv(loadAppEnvClass(appsDir, app)).map(({ name, secret }) => ({ name, secret }));
    const sources: readonly string[] = (DEAD_LETTER_SOURCES_BY_OWNER as Partial<Record<AppName, readonly string[]>>)[app] ?? [];
    apps[app] = { env: declared, queues: sources.filter((source) => QUEUE_NAMES.has(source)) };
  }
  const migrateEnv = describeEnv(WithWebhookSecretKey(DatabaseEnv)).map(({ name, secret }) => ({ name, secret }));
  // tools/migrate never connects to NATS: its Job gets no NATS credentials, files or egress.
  const migrate = migrateEnv.filter(({ name }) => !name.startsWith('NATS_'));
  const manifest: AppEnvManifest = { apps, migrate: { env: migrate } };
  // One variable per line keeps the file short and its diffs readable.
  const json = JSON.stringify(manifest, null, 2).replace(
    /\{\n\s+("name": "[A-Z0-9_]+"),\n\s+("secret": (?:true|false))\n\s+\}/g,
    '{ $1, $2 }',
  );
  return `${json}\n`;
}
