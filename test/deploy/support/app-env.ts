/** What each app reads, from its env class (the same classes that validate it at boot). */
import { APP_NAMES } from '@waggle/contracts';
import { DatabaseEnv, describeEnv, loadAppEnvClass, WithWebhookSecretKey, type EnvVarInfo } from '@waggle/platform';
import * as path from 'node:path';
import { repoRoot } from './chart';

/**
 * The migrations Job (tools/migrate) reads DatabaseEnv; one migration also reads
 * WEBHOOK_SECRET_KEY, to seal webhook secrets stored before they were sealed
 * (apps/invocation/src/database/migrations/1763900000000-seal-webhook-secrets.ts).
 */
const MigrationsEnv = WithWebhookSecretKey(DatabaseEnv);

/** Env classes by the pods' app.kubernetes.io/component label: the seven apps and the migrations Job. */
function envClasses(): Map<string, new () => object> {
  const classes = new Map<string, new () => object>(APP_NAMES.map((app) => [app, loadAppEnvClass(path.join(repoRoot, 'apps'), app)]));
  classes.set('migrations', MigrationsEnv);
  return classes;
}

export function declaredVariables(): Map<string, Set<string>> {
  return new Map([...envClasses()].map(([component, envClass]) => [component, new Set(describeEnv(envClass).map((v) => v.name))]));
}

/** Every variable some env class marks secret. */
export function secretVariableNames(): Set<string> {
  const all: EnvVarInfo[] = [...envClasses().values()].flatMap((envClass) => describeEnv(envClass));
  return new Set(all.filter((v) => v.secret).map((v) => v.name));
}
