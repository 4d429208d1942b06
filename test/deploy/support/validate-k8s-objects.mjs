// Validates Kubernetes objects against their API schemas with kubernetes-models (the
// Kubernetes OpenAPI schemas compiled to validators) and, for custom resources, the
// @kubernetes-models packages generated from their CRDs. Reads a JSON array of objects
// on stdin and writes a JSON array of { schema, error } (error null when valid) in order.
//
// A separate Node process because these packages are ES modules only (exports with the
// `import` condition alone), which Jest's CommonJS runtime cannot load before Node 24.9.

/** Custom resource groups and the package that carries their schemas. */
const CRD_PACKAGES = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'keda.sh': '@kubernetes-models/keda',
  'gateway.networking.k8s.io': '@kubernetes-models/gateway-api',
};

/** The module exporting a group version's classes: kubernetes-models/v1, kubernetes-models/apps/v1, ... */
function moduleOf(apiVersion) {
  const slash = apiVersion.indexOf('/');
  if (slash === -1) return `kubernetes-models/${apiVersion}`;
  const group = apiVersion.slice(0, slash);
  return `${CRD_PACKAGES[group] ?? 'kubernetes-models'}/${apiVersion}`;
}

async function validate(object) {
  const { apiVersion, kind } = object ?? {};
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    return { schema: null, error: 'apiVersion and kind must be strings' };
  }
  const specifier = moduleOf(apiVersion);
  let exports;
  try {
    exports = await import(specifier);
  } catch {
    return { schema: null, error: `no schema for ${apiVersion} (tried ${specifier})` };
  }
  const Model = exports[kind];
  if (typeof Model !== 'function' || Model.kind !== kind || Model.apiVersion !== apiVersion) {
    return { schema: null, error: `no schema for ${kind} in ${apiVersion} (${specifier})` };
  }
  try {
    new Model(object).validate();
    return { schema: `${specifier}/${kind}`, error: null };
  } catch (error) {
    return { schema: `${specifier}/${kind}`, error: error instanceof Error ? error.message : String(error) };
  }
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const objects = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const results = [];
for (const object of objects) results.push(await validate(object));
process.stdout.write(JSON.stringify(results));
