import { APP_NAMES, DEAD_LETTER_SOURCES_BY_OWNER, QueueNames, type AppName } from '@waggle/contracts';
import { DatabaseEnv, describeEnv, loadAppEnvClass, WithWebhookSecretKey } from '@waggle/platform';

export interface ManifestVariable {
  name: string;
  secret: boolean;
}

export interface AppEnvManifest {
  /** Per app: the variables its env class declares, and the BullMQ queues its workers consume. */
  apps: Record<AppName, { env: ManifestVariable[]; queues: string[] }>;
  /** What `migrate` reads: DATABASE_URL, and WEBHOOK_SECRET_KEY for the migration that seals webhook secrets. */
  migrate: { env: ManifestVariable[] };
}

/**
 * Variables agreed for issue 20 that other branches are adding to the env classes (NATS
 * credentials and TLS in BaseEnv; the gateway's metrics port and keep-alive). Listed here so
 * the chart can wire them now; once an env class declares one, its declaration wins and the
 * entry here changes nothing, so this list can be emptied after those branches land.
 */
const PENDING_DECLARATIONS: { apps: readonly AppName[] | 'all'; variables: ManifestVariable[] }[] = [
  {
    apps: 'all',
    variables: [
      { name: 'NATS_USER', secret: false },
      { name: 'NATS_PASSWORD', secret: true },
      { name: 'NATS_TOKEN', secret: true },
      { name: 'NATS_NKEY_SEED_FILE', secret: false },
      { name: 'NATS_CREDS_FILE', secret: false },
      { name: 'NATS_TLS_CA_FILE', secret: false },
      { name: 'NATS_TLS_CERT_FILE', secret: false },
      { name: 'NATS_TLS_KEY_FILE', secret: false },
    ],
  },
  {
    apps: ['gateway'],
    variables: [
      { name: 'METRICS_PORT', secret: false },
      { name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS', secret: false },
    ],
  },
];

const QUEUE_NAMES = new Set<string>(Object.values(QueueNames));

function withPending(app: AppName | 'migrate', declared: ManifestVariable[]): ManifestVariable[] {
  const variables = [...declared];
  for (const { apps, variables: pending } of PENDING_DECLARATIONS) {
    if (apps !== 'all' && (app === 'migrate' || !apps.includes(app))) continue;
    for (const variable of pending) {
      if (!variables.some(({ name }) => name === variable.name)) variables.push(variable);
    }
  }
  return variables;
}

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
    apps[app] = { env: withPending(app, declared), queues: sources.filter((source) => QUEUE_NAMES.has(source)) };
  }
  const migrateEnv = describeEnv(WithWebhookSecretKey(DatabaseEnv)).map(({ name, secret }) => ({ name, secret }));
  const manifest: AppEnvManifest = { apps, migrate: { env: withPending('migrate', migrateEnv) } };
  // One variable per line keeps the file short and its diffs readable.
  const json = JSON.stringify(manifest, null, 2).replace(/\{\n\s+("name": "[A-Z0-9_]+"),\n\s+("secret": (?:true|false))\n\s+\}/g, '{ $1, $2 }');
  return `${json}\n`;
}
