/**
 * Properties every render of the chart must have, whatever the values. Each check returns
 * its violations as one line each (empty: none), so a failing test names every one.
 */
import { objectId, type Json, type K8sObject } from './chart';

/** Objects that run pods; a bare Pod is its own template (the chart's `helm test` Pod). */
const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'Pod'];
/** Workloads whose containers serve (and so are probed); a Job runs to completion. */
const SERVING_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet'];

export interface Container extends Json {
  name: string;
}

export interface PodOwner {
  object: K8sObject;
  /** The pod template's metadata and spec. */
  template: Json;
  podSpec: Json;
}

export function podOwners(objects: K8sObject[]): PodOwner[] {
  return objects
    .filter((object) => WORKLOAD_KINDS.includes(object.kind))
    .map((object) => {
      const template = (
        object.kind === 'Pod'
          ? { metadata: object.metadata, spec: object.spec }
          : object.kind === 'CronJob'
            ? object.spec?.jobTemplate?.spec?.template
            : object.spec?.template
      ) as Json | undefined;
      return { object, template: template ?? {}, podSpec: (template?.spec as Json | undefined) ?? {} };
    });
}

export function containersOf(podSpec: Json): Container[] {
  return [...((podSpec.initContainers as Container[] | undefined) ?? []), ...((podSpec.containers as Container[] | undefined) ?? [])];
}

/** Does a label selector (matchLabels and matchExpressions, or a Service's plain map) select these labels? */
export function selects(selector: Json | undefined, labels: Json | undefined): boolean {
  if (!selector) return false;
  const have: Json = labels ?? {};
  const isLabelSelector = 'matchLabels' in selector || 'matchExpressions' in selector;
  const matchLabels: Json = isLabelSelector ? (selector.matchLabels ?? {}) : selector;
  const expressions: Json[] = isLabelSelector ? (selector.matchExpressions ?? []) : [];
  if (Object.keys(matchLabels).length === 0 && expressions.length === 0) return true;
  return (
    Object.entries(matchLabels).every(([key, value]) => have[key] === value) &&
    expressions.every(({ key, operator, values = [] }: Json) => {
      switch (operator) {
        case 'In':
          return key in have && (values as string[]).includes(have[key]);
        case 'NotIn':
          return !(key in have) || !(values as string[]).includes(have[key]);
        case 'Exists':
          return key in have;
        case 'DoesNotExist':
          return !(key in have);
        default:
          return false;
      }
    })
  );
}

/** Every workload's selector selects its own pod template (the API server refuses it otherwise). */
export function selectorsMatchPodLabels(objects: K8sObject[]): string[] {
  return podOwners(objects)
    .filter(({ object }) => !['Job', 'CronJob', 'Pod'].includes(object.kind) || object.spec?.selector)
    .filter(({ object, template }) => {
      const selector = object.spec?.selector as Json | undefined;
      return !selector || Object.keys(selector).length === 0 || !selects(selector, template.metadata?.labels);
    })
    .map(
      ({ object, template }) =>
        `${objectId(object)}: selector ${JSON.stringify(object.spec?.selector)} does not select its pod labels ${JSON.stringify(template.metadata?.labels)}`,
    );
}

/**
 * Every reference between objects resolves: a Service selects some workload's pods and its
 * named targetPort is a port of theirs; an HPA, a KEDA ScaledObject, a PodDisruptionBudget,
 * a NetworkPolicy, a ServiceMonitor, an Ingress and an HTTPRoute each point at something rendered;
 * and once any NetworkPolicy is rendered, every workload's pods (a Job's too) are selected by
 * one, since a pod no policy selects may reach anything.
 */
export function referencesResolve(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const owners = podOwners(objects);
  const named = (kind: string, name: unknown) => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const services = objects.filter((o) => o.kind === 'Service');
  const portNames = (owner: PodOwner) =>
    containersOf(owner.podSpec).flatMap((c) => ((c.ports as Json[] | undefined) ?? []).map((p) => p.name as string));
  const servicePort = (service: K8sObject | undefined, port: Json | undefined) =>
    ((service?.spec?.ports as Json[] | undefined) ?? []).some(
      (p) => (port?.name !== undefined && p.name === port.name) || (port?.number !== undefined && p.port === port.number),
    );

  for (const service of services) {
    if (!service.spec?.selector) continue; // a Service without selector has manual endpoints
    const selected = owners.filter((owner) => selects(service.spec.selector, owner.template.metadata?.labels));
    if (selected.length === 0) {
      problems.push(`${objectId(service)}: selector ${JSON.stringify(service.spec.selector)} selects no workload`);
      continue;
    }
    for (const port of (service.spec.ports as Json[] | undefined) ?? []) {
      if (typeof port.targetPort === 'string' && !selected.some((owner) => portNames(owner).includes(port.targetPort))) {
        problems.push(`${objectId(service)}: targetPort ${port.targetPort} is no container port of the pods it selects`);
      }
    }
  }
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  if (policies.length > 0) {
    for (const owner of owners) {
      if (!policies.some((policy) => selects((policy.spec?.podSelector as Json | undefined) ?? {}, owner.template.metadata?.labels))) {
        problems.push(`${objectId(owner.object)}: no NetworkPolicy selects its pods`);
      }
    }
  }
  for (const object of objects) {
    const id = objectId(object);
    switch (object.kind) {
      case 'HorizontalPodAutoscaler':
      case 'ScaledObject': {
        const target = object.spec?.scaleTargetRef as Json | undefined;
        if (!named(target?.kind ?? 'Deployment', target?.name))
          problems.push(`${id}: scaleTargetRef ${JSON.stringify(target)} is not rendered`);
        if (
          object.kind === 'ScaledObject' &&
          objects.some((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec?.scaleTargetRef?.name === target?.name)
        ) {
          problems.push(`${id}: ${String(target?.name)} is also scaled by a HorizontalPodAutoscaler`);
        }
        break;
      }
      case 'PodDisruptionBudget':
        if (!owners.some((owner) => selects(object.spec?.selector, owner.template.metadata?.labels)))
          problems.push(`${id}: selector selects no workload`);
        break;
      case 'NetworkPolicy': {
        const selector = (object.spec?.podSelector as Json | undefined) ?? {};
        if (!owners.some((owner) => selects(selector, owner.template.metadata?.labels)))
          problems.push(`${id}: podSelector selects no workload`);
        break;
      }
      case 'ServiceMonitor': {
        const selected = services.filter((service) => selects(object.spec?.selector, service.metadata.labels));
        if (selected.length === 0) problems.push(`${id}: selector selects no Service`);
        for (const endpoint of (object.spec?.endpoints as Json[] | undefined) ?? []) {
          // Prometheus skips a selected Service without the port, so one that has it is enough.
          if (endpoint.port && selected.length > 0 && !selected.some((service) => servicePort(service, { name: endpoint.port }))) {
            problems.push(`${id}: endpoint port ${endpoint.port} is a port of no Service it selects`);
          }
        }
        break;
      }
      case 'Ingress': {
        const backends = [
          object.spec?.defaultBackend,
          ...((object.spec?.rules as Json[] | undefined) ?? []).flatMap((rule) =>
            ((rule.http?.paths as Json[] | undefined) ?? []).map((p) => p.backend),
          ),
        ];
        for (const backend of backends.filter((b): b is Json => Boolean(b?.service))) {
          const service = named('Service', backend.service.name);
          if (!service || !servicePort(service, backend.service.port))
            problems.push(`${id}: backend ${JSON.stringify(backend.service)} is not a rendered Service port`);
        }
        break;
      }
      case 'HTTPRoute':
        for (const rule of (object.spec?.rules as Json[] | undefined) ?? []) {
          for (const ref of (rule.backendRefs as Json[] | undefined) ?? []) {
            const service = named(ref.kind ?? 'Service', ref.name);
            if (!service || !servicePort(service, { number: ref.port }))
              problems.push(`${id}: backendRef ${JSON.stringify(ref)} is not a rendered Service port`);
          }
        }
        break;
    }
  }
  return problems;
}

/** Serving containers have liveness and readiness probes; a Job's run to completion. */
export function servingContainersAreProbed(objects: K8sObject[]): string[] {
  return podOwners(objects)
    .filter(({ object }) => SERVING_KINDS.includes(object.kind))
    .flatMap(({ object, podSpec }) =>
      ((podSpec.containers as Container[] | undefined) ?? []).flatMap((container) =>
        ['livenessProbe', 'readinessProbe']
          .filter((probe) => !container[probe])
          .map((probe) => `${objectId(object)} container ${container.name}: no ${probe}`),
      ),
    );
}

/** Every container (Jobs' and init containers too) requests and is limited in memory. */
export function containersHaveResources(objects: K8sObject[]): string[] {
  return podOwners(objects).flatMap(({ object, podSpec }) =>
    containersOf(podSpec).flatMap((container) =>
      ['requests', 'limits']
        .filter((field) => !container.resources?.[field]?.memory)
        .map((field) => `${objectId(object)} container ${container.name}: no resources.${field}.memory`),
    ),
  );
}

/** Every emptyDir volume has a sizeLimit: without one a pod may fill its node's disk before anything evicts it. */
export function emptyDirsAreBounded(objects: K8sObject[]): string[] {
  return podOwners(objects).flatMap(({ object, podSpec }) =>
    ((podSpec.volumes as Json[] | undefined) ?? [])
      .filter((volume) => volume.emptyDir && !volume.emptyDir.sizeLimit)
      .map((volume) => `${objectId(object)} volume ${String(volume.name)}: emptyDir without sizeLimit`),
  );
}

/** Every container runs as non-root, read-only, without privilege escalation, with every capability dropped. */
export function containersAreLockedDown(objects: K8sObject[]): string[] {
  return podOwners(objects).flatMap(({ object, podSpec }) =>
    containersOf(podSpec).flatMap((container) => {
      const context: Json = container.securityContext ?? {};
      const where = `${objectId(object)} container ${container.name}`;
      const problems: string[] = [];
      const runAsNonRoot = context.runAsNonRoot ?? podSpec.securityContext?.runAsNonRoot;
      const runAsUser = context.runAsUser ?? podSpec.securityContext?.runAsUser;
      if (runAsNonRoot !== true) problems.push(`${where}: runAsNonRoot is not true`);
      if (runAsUser === 0) problems.push(`${where}: runAsUser is 0`);
      if (context.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
      if (context.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (context.privileged === true) problems.push(`${where}: privileged`);
      if (!((context.capabilities?.drop as string[] | undefined) ?? []).includes('ALL'))
        problems.push(`${where}: capabilities.drop does not include ALL`);
      return problems;
    }),
  );
}

/** The environment a container receives: each name with where it comes from. */
export interface ReceivedVariable {
  name: string;
  /** configMap, secret, value (a literal in the pod spec), field (fieldRef/resourceFieldRef) */
  source: 'configMap' | 'secret' | 'value' | 'field';
  /** The ConfigMap or Secret it comes from (`Secret/waggle-credentials`), rendered or not. */
  from?: string;
  /** Its key there, for a configMapKeyRef or secretKeyRef. */
  key?: string;
  /** A literal's value, or a rendered ConfigMap's. */
  value?: string;
}

export interface ContainerEnvironment {
  variables: ReceivedVariable[];
  /** envFrom sources not rendered with the chart (e.g. secrets.existingSecret): their keys are unknown here. */
  external: string[];
}

function dataKeys(object: K8sObject): string[] {
  return [...Object.keys((object.data as Json | undefined) ?? {}), ...Object.keys((object.stringData as Json | undefined) ?? {})];
}

export function environmentOf(container: Container, objects: K8sObject[]): ContainerEnvironment {
  const variables: ReceivedVariable[] = [];
  const external: string[] = [];
  for (const from of (container.envFrom as Json[] | undefined) ?? []) {
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const ref = (from.configMapRef ?? from.secretRef) as Json;
    const source = objects.find((o) => o.kind === kind && o.metadata.name === ref.name);
    if (!source) {
      external.push(`${kind}/${String(ref.name)}`);
      continue;
    }
    for (const key of dataKeys(source)) {
      const name = `${from.prefix ?? ''}${key}`;
      if (kind === 'ConfigMap') variables.push({ name, source: 'configMap', from: objectId(source), value: String(source.data[key]) });
      else variables.push({ name, source: 'secret', from: objectId(source) });
    }
  }
  for (const env of (container.env as Json[] | undefined) ?? []) {
    const secretRef = env.valueFrom?.secretKeyRef as Json | undefined;
    const configMapRef = env.valueFrom?.configMapKeyRef as Json | undefined;
    if (secretRef) variables.push({ name: env.name, source: 'secret', from: `Secret/${String(secretRef.name)}`, key: secretRef.key });
    else if (configMapRef)
      variables.push({ name: env.name, source: 'configMap', from: `ConfigMap/${String(configMapRef.name)}`, key: configMapRef.key });
    else if (env.valueFrom) variables.push({ name: env.name, source: 'field' });
    else variables.push({ name: env.name, source: 'value', value: env.value === undefined ? undefined : String(env.value) });
  }
  return { variables, external };
}

/**
 * No secret sits outside a Secret: no ConfigMap holds a key named like a secret variable,
 * no pod spec gives one as a literal value, and none of the secret values given in the
 * values file appears in any object but a Secret (base64 `data` decoded).
 */
export function secretsStayInSecrets(objects: K8sObject[], secretNames: ReadonlySet<string>, secretValues: string[]): string[] {
  const problems: string[] = [];
  for (const configMap of objects.filter((o) => o.kind === 'ConfigMap')) {
    for (const key of dataKeys(configMap).filter((k) => secretNames.has(k)))
      problems.push(`${objectId(configMap)}: holds the secret variable ${key}`);
  }
  for (const { object, podSpec } of podOwners(objects)) {
    for (const container of containersOf(podSpec)) {
      for (const variable of environmentOf(container, objects).variables) {
        if (variable.source === 'value' && secretNames.has(variable.name))
          problems.push(`${objectId(object)} container ${container.name}: secret ${variable.name} given as a literal value`);
      }
    }
  }
  const values = secretValues.filter((value) => value.length >= 6);
  for (const object of objects.filter((o) => o.kind !== 'Secret')) {
    const text = JSON.stringify(object);
    for (const value of values.filter((v) => text.includes(v)))
      problems.push(`${objectId(object)}: contains the secret value ${value.slice(0, 4)}…`);
  }
  const inSecrets = objects
    .filter((o) => o.kind === 'Secret')
    .map((secret) =>
      JSON.stringify([
        secret.stringData ?? {},
        Object.values((secret.data as Json | undefined) ?? {}).map((v) => Buffer.from(String(v), 'base64').toString('utf8')),
      ]),
    )
    .join('\n');
  for (const value of values.filter((v) => !inSecrets.includes(v)))
    problems.push(`the secret value ${value.slice(0, 4)}… given in the values is in no Secret`);
  return problems;
}

/**
 * Each app's pods receive only variables its env class declares (plus the extra ones the
 * values give that app): a service must not hold another's credentials or settings.
 * `declared` maps an app (the pods' app.kubernetes.io/component label) to its names.
 */
export function appsReceiveOnlyTheirVariables(
  objects: K8sObject[],
  declared: ReadonlyMap<string, ReadonlySet<string>>,
  extra: (app: string) => string[] = () => [],
): string[] {
  const problems: string[] = [];
  for (const { object, template, podSpec } of podOwners(objects)) {
    const app = (template.metadata?.labels as Json | undefined)?.['app.kubernetes.io/component'] as string | undefined;
    const names = app === undefined ? undefined : declared.get(app);
    if (!app || !names) {
      problems.push(`${objectId(object)}: pod component label ${String(app)} names no app with an env class`);
      continue;
    }
    const allowed = new Set([...names, ...extra(app)]);
    for (const container of containersOf(podSpec)) {
      const unexpected = [...new Set(environmentOf(container, objects).variables.map((v) => v.name))]
        .filter((name) => !allowed.has(name))
        .sort();
      if (unexpected.length > 0)
        problems.push(
          `${objectId(object)} container ${container.name} (${app}) receives variables it does not declare: ${unexpected.join(', ')}`,
        );
    }
  }
  return problems;
}
