import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderAppEnvManifest, type AppEnvManifest } from './render-app-env-manifest';

describe('the Helm chart\'s per-app environment manifest', () => {
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
    expect(secrets).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY', 'OPENAI_API_KEY', 'BRAVE_SEARCH_API_KEY', 'NATS_PASSWORD', 'NATS_TOKEN']));
    expect(secrets).not.toContain('NATS_USER');
    expect(secrets).not.toContain('OPENAI_BASE_URL');
  });

  it('names the queues each worker app consumes, for KEDA', () => {
    expect(manifest.apps.invocation.queues).toEqual(['prompt-runs', 'workflow-runs']);
    expect(manifest.apps['knowledge-base'].queues).toEqual(['knowledge-base-ingest', 'knowledge-base-cleanup']);
    expect(manifest.apps['callback-dispatcher'].queues).toEqual(['callbacks']);
    expect(manifest.apps.gateway.queues).toEqual([]);
  });

  it('lists what migrate reads', () => {
    expect(manifest.migrate.env.map(({ name }) => name)).toEqual(expect.arrayContaining(['DATABASE_URL', 'WEBHOOK_SECRET_KEY', 'NODE_ENV']));
    expect(manifest.migrate.env.map(({ name }) => name)).not.toContain('REDIS_URL');
  });
});
