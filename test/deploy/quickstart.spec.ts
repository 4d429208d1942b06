/**
 * docs/operations/kubernetes-quickstart.md, read as a script: the files its steps write
 * (`cat > <file> <<'EOF'`), its `kubectl create secret` and `helm install` commands. The chart
 * is rendered by the real helm with the quickstart's values, and what the release reads is
 * checked against what the steps create. The dependencies' charts and operator are not
 * installed here (no cluster): their values are checked for what Waggle needs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { chartDir, lintChart, NAMESPACE, objectId, renderChart, validateObjects, type Json, type K8sObject } from './support/chart';
import {
  containersAreLockedDown,
  containersHaveResources,
  containersOf,
  emptyDirsAreBounded,
  podOwners,
  referencesResolve,
  selectorsMatchPodLabels,
} from './support/invariants';

const quickstartPath = path.join(chartDir, '../../../docs/operations/kubernetes-quickstart.md');
const quickstart = fs.readFileSync(quickstartPath, 'utf8');
/** The shell of the page's bash blocks, continuation lines joined. */
const shell = [...quickstart.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
const commands = shell.replace(/\\\n\s*/g, ' ');

/** The files the steps write, by name. */
const files = Object.fromEntries([...shell.matchAll(/^cat > (\S+) <<'EOF'\n([\s\S]*?)\nEOF$/gm)].map((m) => [m[1], m[2]]));

interface HelmInstall {
  release: string;
  chart: string;
  namespace: string | undefined;
  valuesFiles: string[];
}
const installs: HelmInstall[] = [...commands.matchAll(/^helm (?:upgrade --)?install (\S+) (\S+)(.*)$/gm)].map((m) => ({
  release: m[1],
  chart: m[2],
  namespace: /--namespace (\S+)/.exec(m[3])?.[1],
  valuesFiles: [...m[3].matchAll(/ -f (\S+)/g)].map((f) => f[1]),
}));
const installOf = (chart: RegExp) => {
  const found = installs.find((install) => chart.test(install.chart));
  if (!found) throw new Error(`the quickstart installs no chart matching ${String(chart)}`);
  return found;
};

/** Secret name -> key -> the literal's value as written (shell text). */
const createdSecrets = new Map<string, Map<string, string>>();
const secretNamespaces = new Set<string>();
for (const [, namespace, name, literals] of commands.matchAll(
  /kubectl -n (\S+) create secret generic (\S+)((?:\s+--from-literal=[A-Za-z0-9_.-]+=(?:"[^"]*"|\S+))+)/g,
)) {
  secretNamespaces.add(namespace);
  const keys = new Map<string, string>();
  for (const [, key, value] of literals.matchAll(/--from-literal=([A-Za-z0-9_.-]+)=("[^"]*"|\S+)/g))
    keys.set(key, value.replace(/^"|"$/g, ''));
  createdSecrets.set(name, keys);
}

const valuesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waggle-quickstart-')), 'waggle-values.yaml');
afterAll(() => fs.rmSync(path.dirname(valuesFile), { recursive: true, force: true }));

describe('docs/operations/kubernetes-quickstart.md', () => {
  const waggle = installOf(/waggle$/);
  const cluster = parse(files['cnpg-cluster.yaml'] ?? '') as Json;
  const redisValues = parse(files['redis-values.yaml'] ?? '') as Json;
  const natsValues = parse(files['nats-values.yaml'] ?? '') as Json;
  const values = parse(files['waggle-values.yaml'] ?? '') as Json;
  let objects: K8sObject[];
  beforeAll(() => {
    fs.writeFileSync(valuesFile, files['waggle-values.yaml'] ?? '');
    const render = renderChart({ release: waggle.release, files: [valuesFile] });
    expect({ status: render.status, stderr: render.stderr }).toEqual({ status: 0, stderr: '' });
    objects = render.objects;
  });

  it('writes the four files its installs read, and installs Waggle with its values into the namespace the chart tests render', () => {
    expect(Object.keys(files).sort()).toEqual(['cnpg-cluster.yaml', 'nats-values.yaml', 'redis-values.yaml', 'waggle-values.yaml']);
    expect(waggle).toMatchObject({ release: 'waggle', namespace: NAMESPACE, valuesFiles: ['waggle-values.yaml'] });
    expect(installOf(/redis$/).valuesFiles).toEqual(['redis-values.yaml']);
    expect(installOf(/nats$/).valuesFiles).toEqual(['nats-values.yaml']);
    expect(commands).toContain('kubectl apply -f cnpg-cluster.yaml');
    expect([...secretNamespaces]).toEqual([NAMESPACE]);
    expect([...createdSecrets.keys()].sort()).toEqual(['waggle-credentials', 'waggle-providers', 'waggle-redis']);
    expect(commands).toMatch(new RegExp(`^helm test ${waggle.release} --namespace ${NAMESPACE}\\b`, 'm'));
  });

  it('its Waggle values pass helm lint --strict and render objects valid against their schemas and the render invariants', () => {
    const lint = lintChart({ files: [valuesFile] });
    expect({ status: lint.status, output: lint.stdout + lint.stderr }).toEqual({
      status: 0,
      output: expect.stringContaining('0 chart(s) failed'),
    });
    const failures = validateObjects(objects).flatMap((result, i) => (result.error ? [`${objectId(objects[i])}: ${result.error}`] : []));
    expect(failures).toEqual([]);
    expect([
      ...referencesResolve(objects),
      ...selectorsMatchPodLabels(objects),
      ...containersHaveResources(objects),
      ...containersAreLockedDown(objects),
      ...emptyDirsAreBounded(objects),
    ]).toEqual([]);
    expect(objects.map(objectId)).toEqual(
      expect.arrayContaining(['Job/waggle-migrations', 'Pod/waggle-test', 'Deployment/waggle-gateway']),
    );
  });

  it('every Secret key the release reads is one a step creates: kubectl create secret, or CloudNativePG for its Cluster', () => {
    // CloudNativePG keeps the application user's credentials in <cluster>-app, `uri` a full URL.
    const provided = new Set([
      ...[...createdSecrets].flatMap(([name, keys]) => [...keys.keys()].map((key) => `${name}/${key}`)),
      `${String(cluster.metadata?.name)}-app/uri`,
    ]);
    const read = new Set(
      podOwners(objects).flatMap(({ podSpec }) =>
        containersOf(podSpec).flatMap((container) =>
          ((container.env as Json[] | undefined) ?? [])
            .filter((env) => env.valueFrom?.secretKeyRef)
            .map((env) => `${String(env.valueFrom.secretKeyRef.name)}/${String(env.valueFrom.secretKeyRef.key)}`),
        ),
      ),
    );
    expect([...read].sort()).toEqual(
      [
        'waggle-db-app/uri',
        'waggle-credentials/REDIS_URL',
        'waggle-credentials/WEBHOOK_SECRET_KEY',
        'waggle-providers/OPENAI_API_KEY',
        'waggle-providers/ANTHROPIC_API_KEY',
      ].sort(),
    );
    expect([...read].filter((ref) => !provided.has(ref))).toEqual([]);
    // And every key created is read: by the release, or (the Redis password) by the Redis chart.
    const readByRedis = `${String(redisValues.auth?.existingSecret)}/${String(redisValues.auth?.existingSecretPasswordKey)}`;
    expect([...provided].filter((ref) => !read.has(ref) && ref !== readByRedis)).toEqual([]);
    expect(createdSecrets.get('waggle-credentials')?.get('WEBHOOK_SECRET_KEY')).toBe('$(openssl rand -base64 32)');
  });

  it('the URLs name the services the dependency releases create', () => {
    const redis = installOf(/redis$/);
    const nats = installOf(/nats$/);
    // The Bitnami chart's standalone primary is <release>-master; the NATS chart's client Service is <release>.
    expect(createdSecrets.get('waggle-credentials')?.get('REDIS_URL')).toBe(`redis://:\${REDIS_PASSWORD}@${redis.release}-master:6379`);
    expect(values.config.natsUrl).toBe(`nats://${nats.release}:4222`);
    expect(values.secrets.databaseUrl).toEqual({ existingSecret: `${String(cluster.metadata.name)}-app`, key: 'uri' });
    expect([redis.namespace, nats.namespace, cluster.metadata.namespace]).toEqual([NAMESPACE, NAMESPACE, NAMESPACE]);
  });

  it('PostgreSQL through CloudNativePG, on an image with pgvector and the extension created before the first migration', () => {
    expect(cluster).toMatchObject({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster' });
    expect(cluster.spec.imageName).toMatch(/^ghcr\.io\/cloudnative-pg\/postgresql:\d+-standard-/);
    expect(cluster.spec.bootstrap.initdb.postInitApplicationSQL).toContain('CREATE EXTENSION IF NOT EXISTS vector SCHEMA public');
    // Connections: 10 per process of the six apps with a database, two replicas each, and room (postgresql.md).
    expect(Number(cluster.spec.postgresql.parameters.max_connections)).toBeGreaterThanOrEqual(120);
  });

  it('Redis with the append-only file and noeviction (redis.md), its password from the Secret created for it', () => {
    const config = String(redisValues.commonConfiguration).split('\n');
    expect(config).toEqual(expect.arrayContaining(['appendonly yes', 'maxmemory-policy noeviction']));
    expect(redisValues).toMatchObject({ architecture: 'standalone', auth: { enabled: true, existingSecret: 'waggle-redis' } });
    expect(createdSecrets.get('waggle-redis')?.has(redisValues.auth.existingSecretPasswordKey as string)).toBe(true);
  });

  it('NATS with JetStream, as many servers as the ledger stream keeps copies', () => {
    expect(natsValues.config.jetstream.enabled).toBe(true);
    expect(natsValues.config.cluster).toMatchObject({ enabled: true, replicas: values.config.ledgerStreamReplicas });
  });
});
