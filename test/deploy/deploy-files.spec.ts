/**
 * Static checks of the deploy files (Dockerfile, entrypoint, docker-compose.yml, Helm chart).
 * Neither Docker nor Helm runs in the unit tier, so this catches what can be caught without
 * them: files that do not parse, values the chart's schema would let through, template
 * references to values that do not exist, and wiring mistakes between the pieces.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { parseDocument } from 'yaml';

const repoRoot = path.resolve(__dirname, '../..');
const chartDir = path.join(repoRoot, 'deploy/helm/waggle');
const templatesDir = path.join(chartDir, 'templates');
const entrypoint = path.join(repoRoot, 'deploy/docker/entrypoint.sh');

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

// Parsed YAML is walked freely below; the schema, not the type system, is what checks its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

function readText(relativePath: string): string {
  return fs.readFileSync(path.join(repoRoot, relativePath), 'utf8');
}

/** Parses YAML, failing on any error or warning; merge keys (`<<`) are resolved as Compose does. */
function parseYaml(relativePath: string): Json {
  const doc = parseDocument(readText(relativePath), { merge: true, prettyErrors: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((w) => w.message)).toEqual([]);
  const value = doc.toJS() as unknown;
  expect(value).toEqual(expect.any(Object));
  return value as Json;
}

function commandWords(command: unknown): string[] {
  if (Array.isArray(command)) return command.map(String);
  if (typeof command === 'string') return command.trim().split(/\s+/);
  return [];
}

describe('Helm chart deploy/helm/waggle', () => {
  const chart = parseYaml('deploy/helm/waggle/Chart.yaml');
  const values = parseYaml('deploy/helm/waggle/values.yaml');
  const schema = JSON.parse(readText('deploy/helm/waggle/values.schema.json')) as Json;
  const ajv = new Ajv({ allErrors: true, strict: false });
  let compiled: ValidateFunction | undefined;
  // Compiled on first use so that a schema that does not compile fails a test rather than the whole file.
  const validate = (data: unknown): boolean => (compiled ??= ajv.compile(schema))(data);
  const validationErrors = () => compiled?.errors ?? [];

  const templateFiles = fs.readdirSync(templatesDir).sort();
  const templates = templateFiles.map((file) => ({
    file,
    text: fs.readFileSync(path.join(templatesDir, file), 'utf8'),
  }));
  const template = (file: string): string => {
    const found = templates.find((t) => t.file === file);
    if (!found) throw new Error(`template ${file} is missing`);
    return found.text;
  };

  /** Validates a mutated deep copy of values.yaml and returns the schema errors. */
  function errorsFor(mutate: (v: Json) => void): ErrorObject[] {
    const copy = structuredClone(values);
    mutate(copy);
    expect(validate(copy)).toBe(false);
    return validationErrors();
  }

  it('Chart.yaml declares the waggle chart, apiVersion v2, version 0.1.0', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'waggle', version: '0.1.0', appVersion: '0.1.0' });
  });

  it('values.schema.json is a draft-07 schema that compiles', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });

  it('values.yaml validates against values.schema.json', () => {
    const valid = validate(values);
    expect(validationErrors()).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the schema accepts realistic overrides', () => {
    const copy = structuredClone(values);
    copy.global = { imageRegistry: 'example' }; // injected by Helm when used as a subchart
    copy.secrets.existingSecret = 'waggle-credentials';
    copy.config.otelExporterOtlpEndpoint = 'http://otel-collector:4318';
    copy.apps.gateway.service.type = 'LoadBalancer';
    copy.apps.agent.autoscaling = {
      enabled: true,
      minReplicas: 2,
      maxReplicas: 20,
      targetCPUUtilizationPercentage: 60,
      targetMemoryUtilizationPercentage: 80,
    };
    copy.apps.agent.env = { FEATURE_X: 'on' };
    delete copy.apps.catalog.env; // optional per-app keys may be omitted
    expect(validate(copy) ? [] : validationErrors()).toEqual([]);
  });

  describe('the schema rejects bad values', () => {
    it('an unknown top-level key', () => {
      const errors = errorsFor((v) => {
        v.replicaCount = 3;
      });
      expect(errors).toContainEqual(
        expect.objectContaining({
          instancePath: '',
          keyword: 'additionalProperties',
          params: { additionalProperty: 'replicaCount' },
        }),
      );
    });

    it('a negative replica count', () => {
      const errors = errorsFor((v) => {
        v.apps.agent.replicas = -1;
      });
      expect(errors).toContainEqual(expect.objectContaining({ instancePath: '/apps/agent/replicas', keyword: 'minimum' }));
    });

    it('an app missing its port', () => {
      const errors = errorsFor((v) => {
        delete v.apps['knowledge-base'].port;
      });
      expect(errors).toContainEqual(
        expect.objectContaining({
          instancePath: '/apps/knowledge-base',
          keyword: 'required',
          params: { missingProperty: 'port' },
        }),
      );
    });



    it('an unknown app name', () => {
      const errors = errorsFor((v) => {
        v.apps.gatewy = structuredClone(v.apps.gateway);
      });
      expect(errors).toContainEqual(expect.objectContaining({ instancePath: '/apps', params: { additionalProperty: 'gatewy' } }));
    });

    it('a log level the apps do not know', () => {
      const errors = errorsFor((v) => {
        v.config.logLevel = 'verbose';
      });
      expect(errors).toContainEqual(expect.objectContaining({ instancePath: '/config/logLevel', keyword: 'enum' }));
    });
  });

  it('values.yaml has exactly the seven apps, each on its own port', () => {
    expect(Object.keys(values.apps).sort()).toEqual([...APPS].sort());
    for (const app of APPS) {
      expect({ app, port: values.apps[app].port }).toEqual({ app, port: APP_PORTS[app] });
    }
    expect(values.apps.gateway.service.type).toBe('ClusterIP');
  });

  it('has every template the chart needs', () => {
    expect(templateFiles).toEqual(
      expect.arrayContaining([
        '_helpers.tpl',
        'deployment.yaml',
        'service.yaml',
        'hpa.yaml',
        'migrations-job.yaml',
        'secret.yaml',
        'configmap.yaml',
        'NOTES.txt',
      ]),
    );
  });

  it.each(templateFiles)('%s: {{ }} delimiters and block actions balance', (file) => {
    const text = template(file);
    const actions: string[] = [];
    let cursor = 0;
    for (;;) {
      const open = text.indexOf('{{', cursor);
      const close = text.indexOf('}}', cursor);
      if (open === -1) {
        expect({ file, strayCloseAt: close }).toEqual({ file, strayCloseAt: -1 });
        break;
      }
      // A `}}` before the next `{{` closes nothing; a `{{` before the previous one closed is nested.
      expect({ file, strayCloseAt: close !== -1 && close < open ? close : -1 }).toEqual({ file, strayCloseAt: -1 });
      const end = text.indexOf('}}', open + 2);
      const nextOpen = text.indexOf('{{', open + 2);
      expect({ file, unclosedAt: end === -1 || (nextOpen !== -1 && nextOpen < end) ? open : -1 }).toEqual({
        file,
        unclosedAt: -1,
      });
      actions.push(text.slice(open + 2, end));
      cursor = end + 2;
    }
    const keywordOf = (action: string) => /^-?\s*([a-z]+)\b/.exec(action)?.[1];
    const opened = actions.filter((a) => ['if', 'range', 'with', 'define', 'block'].includes(keywordOf(a) ?? ''));
    const ended = actions.filter((a) => keywordOf(a) === 'end');
    expect({ file, blocks: opened.length }).toEqual({ file, blocks: ended.length });
  });

  it('every .Values path used in a template exists in values.yaml', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const { file, text } of templates) {
      for (const match of text.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
        const keys = match[1].slice(1).split('.');
        let node: unknown = values;
        for (const key of keys) {
          if (node === null || typeof node !== 'object' || !(key in node)) {
            missing.push(`${file}: .Values.${keys.join('.')}`);
            break;
          }
          node = (node as Json)[key];
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('generates one Deployment, Service and (optional) HPA per app by ranging over .Values.apps', () => {
    for (const file of ['deployment.yaml', 'service.yaml', 'hpa.yaml']) {
      expect(template(file)).toMatch(/\{\{-?\s*range \$name, \$app := \.Values\.apps\s*-?\}\}/);
    }
    expect(template('deployment.yaml')).toMatch(/kind: Deployment/);
    expect(template('service.yaml')).toMatch(/kind: Service/);
    expect(template('hpa.yaml')).toMatch(/apiVersion: autoscaling\/v2\s+kind: HorizontalPodAutoscaler/);
    expect(template('hpa.yaml')).toMatch(/if and \$app\.enabled \$app\.autoscaling\.enabled/);
  });

  it('runs migrations as a pre-install,pre-upgrade hook Job that cleans up after itself', () => {
    // The file also holds the Job's hook Secret, which carries the same annotations: check the Job itself.
    const jobs = template('migrations-job.yaml')
      .split(/^---$/m)
      .filter((doc) => /^kind: Job$/m.test(doc));
    expect(jobs).toHaveLength(1);
    const job = jobs[0];
    expect(job).toMatch(/"helm\.sh\/hook":\s*"?pre-install,pre-upgrade"?/);
    expect(job).toMatch(/"helm\.sh\/hook-weight":\s*"-?\d+"/);
    expect(job).toMatch(/"helm\.sh\/hook-delete-policy":\s*"?before-hook-creation,hook-succeeded"?/);
    expect(job).toMatch(/args: \["migrate"\]/);
    expect(job).toMatch(/restartPolicy: Never/);
  });

  it('deployments probe both health routes, start the app by name and drain before being killed', () => {
    const deployment = template('deployment.yaml');
    expect(deployment).toMatch(/livenessProbe:\s+httpGet:\s+path: \/health\/live/);
    expect(deployment).toMatch(/readinessProbe:\s+httpGet:\s+path: \/health\/ready/);
    expect(deployment).toMatch(/startupProbe:\s+httpGet:\s+path: \/health\/live/);
    expect(deployment).toMatch(/args: \[\{\{ \$name \| quote \}\}\]/);
    expect(deployment).toMatch(/configMapRef:/);
    expect(deployment).toMatch(/terminationGracePeriodSeconds: \{\{ include "waggle\.terminationGracePeriodSeconds" \$ \}\}/);
    // The grace period is derived from SHUTDOWN_GRACE_MS plus the preStop sleep plus a margin.
    expect(template('_helpers.tpl')).toMatch(
      /define "waggle\.terminationGracePeriodSeconds"[\s\S]*?div \(add \(int64 \.Values\.config\.shutdownGraceMs\) 999\) 1000[\s\S]*?add \$drainSeconds \(int64 \.Values\.preStopSleepSeconds\) [1-9]/,
    );
  });

  it('pods run as non-root with a read-only root filesystem', () => {
    expect(values.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(values.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(template('deployment.yaml')).toMatch(/securityContext:\s+\{\{- toYaml \$\.Values\.securityContext/);
  });
});

describe('docker-compose.yml', () => {
  const compose = parseYaml('docker-compose.yml');
  const services = compose.services as Json;

  it('runs PostgreSQL with pgvector, Redis and NATS JetStream, each with a healthcheck', () => {
    expect(services.postgres.image).toMatch(/^pgvector\/pgvector:pg\d+$/);
    expect(commandWords(services.postgres.healthcheck?.test).join(' ')).toContain('pg_isready');
    expect(services.postgres.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^postgres-data:/)]));

    expect(services.redis.image).toMatch(/^redis:7/);
    expect(commandWords(services.redis.healthcheck?.test)).toEqual(expect.arrayContaining(['redis-cli', 'ping']));

    expect(services.nats.image).toMatch(/^nats:2\.10/);
    const natsCommand = commandWords(services.nats.command);
    expect(natsCommand).toContain('-js');
    expect(natsCommand).toEqual(expect.arrayContaining(['-sd', '-m', '8222']));
    expect(commandWords(services.nats.healthcheck?.test).join(' ')).toContain('http://127.0.0.1:8222/healthz');

    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['postgres-data', 'redis-data', 'nats-data']));
  });

  it('runs migrations as a one-shot once the infrastructure is healthy', () => {
    const migrate = services.migrate;
    expect(commandWords(migrate.command)).toEqual(['migrate']);
    expect(migrate.build).toMatchObject({ context: '.', dockerfile: 'Dockerfile' });
    expect(migrate.restart).toBe('no');
    for (const infra of ['postgres', 'redis', 'nats']) {
      expect(migrate.depends_on?.[infra]).toEqual({ condition: 'service_healthy' });
    }
  });

  it.each(APPS)('%s runs from the shared image after migrations succeed', (app) => {
    const service = services[app];
    expect(service).toBeDefined();
    expect(service.image).toBe(services.migrate.image);
    expect(commandWords(service.command)).toEqual([app]);
    expect(service.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
    for (const infra of ['postgres', 'redis', 'nats']) {
      expect(service.depends_on?.[infra]).toEqual({ condition: 'service_healthy' });
    }
    expect(service.environment).toMatchObject({
      // Required: compose refuses to start without it rather than run with a known key.
      WEBHOOK_SECRET_KEY: expect.stringMatching(/^\$\{WEBHOOK_SECRET_KEY:\?.+\}$/),
      PORT: String(APP_PORTS[app]),
      DATABASE_URL: expect.stringMatching(/^postgres:\/\/.*@postgres:5432\//),
      REDIS_URL: 'redis://redis:6379',
      NATS_URL: 'nats://nats:4222',
    });
    const healthcheck = commandWords(service.healthcheck?.test);
    expect(healthcheck.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(healthcheck.join(' ')).toContain('/health/ready');
  });

  it('publishes only the gateway, on ${PORT:-3000} -> 3000', () => {
    expect(services.gateway.ports).toEqual(['${PORT:-3000}:3000']);
    const published = Object.entries(services)
      .filter(([, service]) => (service as Json).ports)
      .map(([name]) => name);
    expect(published).toEqual(['gateway']);
  });

  it('shares the app boilerplate through an x-app anchor', () => {
    expect(readText('docker-compose.yml')).toMatch(/^x-app: &app$/m);
    expect(readText('docker-compose.yml').match(/<<: \*app$/gm)).toHaveLength(APPS.length);
  });
});

describe('container image', () => {
  const dockerfile = readText('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages = instructions.reduce<string[][]>((acc, line) => {
    if (/^FROM\s/i.test(line)) acc.push([line]);
    else acc.at(-1)?.push(line);
    return acc;
  }, []);

  it('is a multi-stage build on node:22-bookworm-slim', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage[0]).toMatch(/^FROM node:22-bookworm-slim\b/);
  });

  it('builds with npm ci, npm run build and prunes dev dependencies', () => {
    const build = stages[0].join('\n');
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm prune --omit=dev/);
  });

  it('runs as a non-root user under tini with NODE_ENV=production', () => {
    const runtime = stages[stages.length - 1] ?? [];
    const user = runtime.filter((line) => /^USER\s/.test(line)).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|\s|$)/);
    expect(runtime.join('\n')).toMatch(/ENV NODE_ENV=production/);
    for (const copied of ['/app/dist', '/app/node_modules', '/app/package.json']) {
      expect(runtime.some((line) => line.startsWith('COPY --from=build') && line.includes(copied))).toBe(true);
    }
    const entry = runtime.find((line) => line.startsWith('ENTRYPOINT')) ?? 'ENTRYPOINT (missing)';
    expect(JSON.parse(entry.replace(/^ENTRYPOINT\s+/, '')) as unknown).toEqual(['/usr/bin/tini', '--', '/app/deploy/docker/entrypoint.sh']);
  });

  it('.dockerignore keeps local build output, secrets and VCS data out of the context', () => {
    const ignored = readText('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', '.git', 'coverage', 'tmp', '.nx', '*.log', '.env']) {
      expect(ignored).toContain(entry);
    }
  });

  describe('entrypoint.sh', () => {
    let fakeBin: string;
    beforeAll(() => {
      // A stand-in for node that prints where it ran and its arguments, to see what would be exec'd.
      fakeBin = fs.mkdtempSync(path.join(os.tmpdir(), 'waggle-entrypoint-'));
      fs.writeFileSync(path.join(fakeBin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$PWD" "$@"\n', { mode: 0o755 });
    });
    afterAll(() => fs.rmSync(fakeBin, { recursive: true, force: true }));

    function run(args: string[], cwd = repoRoot) {
      const result = spawnSync('bash', [path.relative(cwd, entrypoint) || entrypoint, ...args], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ''}` },
      });
      const [pwd, ...argv] = result.stdout.split('\n').slice(0, -1);
      return { status: result.status, stderr: result.stderr, stdout: result.stdout, pwd, argv };
    }

    it('names all seven apps plus migrate and cli', () => {
      const script = readText('deploy/docker/entrypoint.sh');
      for (const command of [...APPS, 'migrate', 'cli']) expect(script).toContain(command);
    });

    it.each(APPS)('starts %s from dist/apps/<name>/src/main.js at the repository root', (app) => {
      const result = run([app]);
      expect(result.status).toBe(0);
      expect(fs.realpathSync(result.pwd)).toBe(fs.realpathSync(repoRoot));
      expect(result.argv).toEqual([`dist/apps/${app}/src/main.js`]);
    });

    it('runs the migrate command', () => {
      expect(run(['migrate'])).toMatchObject({ status: 0, argv: ['dist/tools/migrate/src/main.js'] });
    });

    it('passes the remaining arguments to the CLI, from any working directory', () => {
      const result = run(['cli', 'api-keys', 'create', '--workspace', 'a b'], os.tmpdir());
      expect(result.status).toBe(0);
      expect(fs.realpathSync(result.pwd)).toBe(fs.realpathSync(repoRoot));
      expect(result.argv).toEqual(['dist/tools/cli/src/main.js', 'api-keys', 'create', '--workspace', 'a b']);
    });

    it('exits 64 with usage on stderr for an unknown command', () => {
      const result = spawnSync('bash', ['deploy/docker/entrypoint.sh', 'bogus'], { cwd: repoRoot, encoding: 'utf8' });
      expect(result.status).toBe(64);
      expect(result.stderr).toMatch(/usage:/);
      expect(result.stdout).toBe('');
    });

    it('exits 64 without a command', () => {
      const result = run([]);
      expect(result.status).toBe(64);
      expect(result.stderr).toMatch(/usage:/);
      expect(result.argv).toEqual([]);
    });
  });
});
