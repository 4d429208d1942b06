/** What each app reads, from its env class (the same classes that validate it at boot). */
import { APP_NAMES, type AppName } from '@waggle/contracts';
import { DatabaseEnv, describeEnv, loadAppEnvClass, WithWebhookSecretKey, type EnvVarInfo } from '@waggle/platform';
import * as path from 'node:path';
import { repoRoot } from './chart';

/**
 * The migrations Job (tools/migrate) reads DatabaseEnv; one migration also reads
 * WEBHOOK_SECRET_KEY, to seal webhook secrets stored before they were sealed
 * (apps/invocation/src/database/migrations/1763900000000-seal-webhook-secrets.ts).
 */
const MigrationsEnv = WithWebhookSecretKey(DatabaseEnv);

/** Each pod's variables by its app.kubernetes.io/component label (the seven apps and the migrations Job): its env class's. */
function variablesByComponent(): Map<string, EnvVarInfo[]> {
  const variables = new Map<string, EnvVarInfo[]>(
    APP_NAMES.map((app: AppName) => [app, describeEnv(loadAppEnvClass(path.join(repoRoot, 'apps'), app))]),
  );
  // tools/migrate connects to PostgreSQL only (tools/migrate/src/main.ts): BaseEnv's NATS
  // variables, declared by its class, are nothing it reads, and its Job must not hold them.
  variables.set(
    'migrations',
    describeEnv(MigrationsEnv).filter(({ name }) => !name.startsWith('NATS_')),
  );
  return variables;
}

export function declaredVariables(): Map<string, Set<string>> {
  return new Map([...variablesByComponent()].map(([component, variables]) => [component, new Set(variables.map((v) => v.name))]));
}

/** Every variable some env class marks secret. */
export function secretVariableNames(): Set<string> {
  return new Set([...variablesByComponent().values()].flatMap((variables) => variables.filter((v) => v.secret).map((v) => v.name)));
}
