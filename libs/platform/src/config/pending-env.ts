import type { AppName } from '@waggle/contracts';

/** A variable as the chart's manifest and the render checks list it. */
export interface DeclaredVariable {
  name: string;
  secret: boolean;
}

/**
 * Variables agreed for issue 20 that other branches are adding to the env classes (NATS
 * credentials and TLS in BaseEnv; the gateway's metrics port and keep-alive). The chart's
 * manifest (tools/env-example) lists them so the chart can wire them now, and the chart's
 * render checks (test/deploy) accept them; once an env class declares one, its declaration
 * wins and the entry here changes nothing, so this list can be emptied after those branches land.
 */
const PENDING_DECLARATIONS: { apps: readonly AppName[] | 'all'; variables: DeclaredVariable[] }[] = [
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

/** An app's (or migrate's) declared variables, followed by the pending ones it does not declare yet. */
export function withPendingDeclarations(app: AppName | 'migrate', declared: readonly DeclaredVariable[]): DeclaredVariable[] {
  const variables = declared.map(({ name, secret }) => ({ name, secret }));
  for (const { apps, variables: pending } of PENDING_DECLARATIONS) {
    if (apps !== 'all' && (app === 'migrate' || !apps.includes(app))) continue;
    for (const variable of pending) {
      if (!variables.some(({ name }) => name === variable.name)) variables.push(variable);
    }
  }
  return variables;
}
