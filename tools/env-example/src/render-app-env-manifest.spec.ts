import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { renderAppEnvManifest, type AppEnvManifest } from './render-app-env-manifest';

describe("the Helm chart's per-app environment manifest", () => {
  const root = join(__dirname, '../../..');
  const rendered = renderAppEnvManifest(join(root, 'apps'));
  const manifest = JSON.parse(rendered) as AppEnvManifest;
  const names = (app: keyof AppEnvManifest['apps']) => manifest.apps[app].env.map(({ name }) => name);

  it('is exactly what the env classes generate (npm run env:example rewrites it)', () => {
    expect(readFileSync(join(root, 'deploy/helm/waggle/files/app-env.json'), 'utf8')).toBe(rendered);
  });

  it('gives each app only what its env class reads', () => {
    expect(names('gateway')).toEqual(expect.arrayContaining(['NATS_URL', 'REDIS_URL', 'NATS_REQUEST_TIMEOUT_MS', 'METRICS_PORT']));
    expect(names('gateway')).not.toContain('DATABASE_URL');
    expect(names('gateway')).not.toContain('WEBHOOK_SECRET_KEY');
    expect(names('gateway')).not.toContain('OPENAI_API_KEY');
    expect(names('catalog')).toContain('DATABASE_URL');
    expect(names('catalog')).not.toContain('REDIS_URL');
    expect(names('asset')).toContain('ASSET_S3_SECRET_ACCESS_KEY');
    expect(names('invocation')).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'TAVILY_API_KEY', 'WEBHOOK_SECRET_KEY']));
    expect(names('knowledge-base')).not.toContain('WEBHOOK_SECRET_KEY');
  });

  it('marks the secrets', () => {
    const secrets = manifest.apps.invocation.env.filter(({ secret }) => secret).map(({ name }) => name);
    expect(secrets).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'REDIS_URL',
        'WEBHOOK_SECRET_KEY',
        'OPENAI_API_KEY',
        'BRAVE_SEARCH_API_KEY',
        'NATS_PASSWORD',
        'NATS_TOKEN',
      ]),
    );
    expect(secrets).not.toContain('NATS_USER');
    expect(secrets).not.toContain('OPENAI_BASE_URL');
  });

  it('names the queues each worker app consumes, for KEDA', () => {
    expect(manifest.apps.invocation.queues).toEqual(['prompt-runs', 'workflow-runs', 'experiment-cells']);
    expect(manifest.apps['knowledge-base'].queues).toEqual(['knowledge-base-ingest', 'knowledge-base-cleanup']);
    expect(manifest.apps['callback-dispatcher'].queues).toEqual(['callbacks']);
    expect(manifest.apps.gateway.queues).toEqual([]);
  });

  it('lists what migrate reads', () => {
    expect(manifest.migrate.env.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'WEBHOOK_SECRET_KEY', 'NODE_ENV']),
    );
    expect(manifest.migrate.env.map(({ name }) => name)).not.toContain('REDIS_URL');
    // migrate connects to PostgreSQL only: no NATS credentials or files.
    expect(manifest.migrate.env.map(({ name }) => name).filter((name) => name.startsWith('NATS_'))).toEqual([]);
  });
});

describe('the Helm chart models every credential the env classes declare', () => {
  const root = join(__dirname, '../../..');
  const chartDir = join(root, 'deploy/helm/waggle');
  const manifest = JSON.parse(readFileSync(join(chartDir, 'files/app-env.json'), 'utf8')) as AppEnvManifest;
  const values = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as { secrets: Record<string, unknown> };
  const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as {
    properties: { secrets: { properties: Record<string, unknown> } };
  };
  // The chart's own mapping (templates/_helpers.tpl, waggle.secretKeyOf): lower | camelcase | untitle.
  const entryOf = (variable: string) => variable.toLowerCase().replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());
  const secretVariables = [
    ...new Set(Object.values(manifest.apps).flatMap(({ env }) => env.filter(({ secret }) => secret).map(({ name }) => name))),
  ];

  it('has a secrets.<entry> in values.yaml and the schema for each secret variable', () => {
    const entries = secretVariables.map(entryOf);
    expect(entries).toContain('googleGenerativeAiApiKey');
    expect(entries.filter((entry) => !(entry in values.secrets))).toEqual([]);
    expect(entries.filter((entry) => !(entry in schema.properties.secrets.properties))).toEqual([]);
  });

  it('has no secrets.<entry> that names no variable', () => {
    const variables = new Set(Object.values(manifest.apps).flatMap(({ env }) => env.map(({ name }) => entryOf(name))));
    const stray = Object.keys(values.secrets).filter((entry) => entry !== 'existingSecret' && !variables.has(entry));
    expect(stray).toEqual([]);
    expect(Object.keys(schema.properties.secrets.properties).sort()).toEqual(Object.keys(values.secrets).sort());
  });
});
