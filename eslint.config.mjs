import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { relative, sep } from 'node:path';

const databaseAndServerPackages = [
  'typeorm',
  'typeorm/*',
  '@nestjs/typeorm',
  'pg',
  'ioredis',
  'bullmq',
  '@nestjs/bullmq',
  '@nestjs/core',
  '@nestjs/microservices',
  '@nestjs/platform-express',
];

/**
 * Which project may import which. A project's own tests (its `test` folder)
 * may also use the testing library; its sources may not.
 */
function moduleBoundaries({ tests = false } = {}) {
  const withTesting = (tags) => (tests ? [...tags, 'type:testing'] : tags);
  return {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      // Apps (and the ops tools) build on libraries only; Nx also forbids importing an app.
      {
        sourceTag: 'type:app',
        onlyDependOnLibsWithTags: withTesting(['type:feature', 'type:platform', 'type:database', 'type:contracts', 'type:util']),
      },
      { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:platform', 'type:database', 'type:contracts', 'type:util'] },
      {
        sourceTag: 'type:test',
        onlyDependOnLibsWithTags: ['type:testing', 'type:feature', 'type:platform', 'type:database', 'type:contracts', 'type:util'],
      },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:util'] },
      { sourceTag: 'type:platform', onlyDependOnLibsWithTags: withTesting(['type:contracts', 'type:util']) },
      // Database code (TypeORM, pg) lives only here, for the services and the migrate tool.
      { sourceTag: 'type:database', onlyDependOnLibsWithTags: ['type:util'] },
      // Feature libraries (documents) build on platform libraries (its SSRF guard comes from webhooks).
      { sourceTag: 'type:feature', onlyDependOnLibsWithTags: withTesting(['type:platform', 'type:contracts', 'type:util']) },
      // Contracts are wire types: no database, queue or Nest server code.
      { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:util'], bannedExternalImports: databaseAndServerPackages },
      { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
      // The gateway holds no domain logic and never touches a database.
      {
        sourceTag: 'scope:gateway',
        notDependOnLibsWithTags: ['type:database'],
        bannedExternalImports: ['typeorm', 'typeorm/*', '@nestjs/typeorm', 'pg'],
      },
    ],
  };
}

/**
 * Nest enhancers a service controller must not use: services answer only through `@RpcHandler`
 * (GracefulNatsServer.serve), which does not run Nest's RPC pipeline, so a guard, interceptor,
 * filter or pipe there would silently never run, and a message or event pattern would bypass
 * the contract. What every message needs is done once, in the server.
 */
const NEST_ENHANCERS = '/^(UseGuards|UseInterceptors|UseFilters|UsePipes|MessagePattern|EventPattern)$/';
const serviceEnhancerBan = [
  {
    selector: `Decorator CallExpression > Identifier.callee[name=${NEST_ENHANCERS}]`,
    message:
      'Service controllers answer through @RpcHandler only: Nest guards, interceptors, filters, pipes and message/event patterns do not run there.',
  },
  {
    selector: `ImportSpecifier[imported.name=${NEST_ENHANCERS}]`,
    message: 'Service code answers through @RpcHandler only: Nest enhancers and message/event patterns are not used by services.',
  },
  {
    selector: 'Identifier[name=/^APP_(GUARD|INTERCEPTOR|FILTER|PIPE)$/]',
    message: "Global Nest enhancers do not run for a service's RPC handlers; GracefulNatsServer.serve is the one pipeline.",
  },
];

/** Test code: specs beside the code and every `test/` folder. What the rules below leave alone. */
const TESTS = ['**/*.spec.ts', '**/*-spec.ts', '**/test/**'];

/**
 * TypeORM's data-access surface stays in repositories (and database, migration and test code):
 * services call a repository and never hold an EntityManager or a DataSource. Type-only imports
 * count, like any other.
 */
const DATA_ACCESS_HOMES = ['**/*.repository.ts', 'apps/*/src/database/**', 'libs/database/**', 'libs/testing/**', 'tools/migrate/**'];
const dataAccessBan = {
  patterns: [
    {
      group: ['typeorm', 'typeorm/*'],
      importNames: ['EntityManager', 'DataSource', 'Repository'],
      message: "TypeORM's EntityManager, DataSource and Repository are used only in a feature's *.repository.ts (and database code).",
    },
    {
      group: ['@nestjs/typeorm'],
      importNames: ['InjectRepository', 'InjectDataSource'],
      message: "@InjectRepository and @InjectDataSource appear only in a feature's *.repository.ts.",
    },
  ],
};
/** Everything past single-row CRUD is raw SQL through the repository's helper, never a query builder. */
const queryBuilderBan = [
  {
    selector: 'Identifier[name="createQueryBuilder"]',
    message: "createQueryBuilder is not used: a repository's query past single-row CRUD is raw SQL (RowOf<Entity> rows).",
  },
];

/**
 * A NATS call's time-out is its contract's (`rpc(pattern, Request, { timeoutMs })`), cut to the
 * caller's deadline by `send`: services and libraries pass none of their own. The gateway passes
 * an operator's settings (SYNC_INVOKE_TIMEOUT_MS, ASSET_STORE_TIMEOUT_MS) and its readiness budget.
 */
const sendTimeoutBan = [
  {
    selector: 'CallExpression[callee.name="send"] > ObjectExpression:nth-child(4) > Property[key.name="timeoutMs"]',
    message:
      "A call's time-out is declared once, with its pattern in libs/contracts (rpc(…, { timeoutMs })); send() cuts it to the caller's deadline.",
  },
];

/**
 * Where a kind of file lives, by its name (docs/contributing/service-template.md, Layout). The
 * import rules between these files are dependency-cruiser's (.dependency-cruiser.cjs).
 */
const FILE_HOMES = [
  {
    name: /\.entity\.ts$/,
    home: /^apps\/[^/]+\/src\/(?!database\/)[^/]+\/(?:[^/]+\/)?entities\/[^/]+\.entity\.ts$/,
    message: "An entity lives in its feature's entities/ folder: apps/<service>/src/<feature>/entities/ (or <feature>/<sub>/entities/).",
  },
  {
    name: /\.patterns\.ts$/,
    // One contract per service, plus the two every service answers (health pings, dead letters), and
    // the invocation service's datasets, experiment runs and releases, each large enough for a file of its own.
    home: /^libs\/contracts\/src\/(?:invocation|agent|knowledge-base|asset|catalog|callback-dispatcher|health|dead-letters|datasets|experiments|releases)\.patterns\.ts$/,
    message: 'A wire contract is libs/contracts/src/<service>.patterns.ts, one per service.',
  },
  {
    name: /\.repository\.ts$/,
    home: /^apps\/[^/]+\/src\/(?!database\/|config\/)[^/]+\/(?:[^/]+\/)*[^/]+\.repository\.ts$/,
    message: 'A repository is a file of its feature: apps/<service>/src/<feature>/<name>.repository.ts.',
  },
];
const ROOT = import.meta.dirname;
/** Reports a file whose name says what it is (`.entity.ts`, …) but which lies outside where that kind lives. */
const fileLocation = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = relative(ROOT, context.filename).split(sep).join('/');
    const misplaced = FILE_HOMES.filter((rule) => rule.name.test(file) && !rule.home.test(file));
    return { Program: (node) => misplaced.forEach((rule) => context.report({ node, message: rule.message })) };
  },
};

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  prettier,
  { ignores: ['**/dist', '**/node_modules', '**/coverage', '**/.nx', '**/tmp'] },
  {
    files: ['**/*.ts'],
    rules: {
      // Env classes annotate literal-initialised fields on purpose: swc emits design:type
      // (which loadConfig converts by) only from explicit annotations.
      '@typescript-eslint/no-inferrable-types': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': ['error', moduleBoundaries()],
    },
  },
  // The web console is a browser bundle: it reaches Waggle over HTTP only, never through a library
  // of the server (which would drag Node code into the bundle).
  {
    files: ['apps/console/**/*.{ts,tsx,mts}'],
    ignores: ['apps/console/vite.config.mts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['@waggle/*', 'node:*'], message: 'The console talks to the gateway over HTTP; it imports no server code.' }],
        },
      ],
    },
  },
  {
    files: ['apps/*/test/**/*.ts', 'libs/*/test/**/*.ts', 'tools/*/test/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', moduleBoundaries({ tests: true })] },
  },
  {
    files: ['**/*.ts'],
    plugins: { waggle: { rules: { 'file-location': fileLocation } } },
    rules: { 'waggle/file-location': 'error' },
  },
  {
    files: ['**/*.ts'],
    ignores: [...TESTS, ...DATA_ACCESS_HOMES],
    rules: { 'no-restricted-imports': ['error', dataAccessBan] },
  },
  // One block per set of files, since a later block's no-restricted-syntax replaces an earlier one's.
  {
    files: ['**/*.ts'],
    ignores: TESTS,
    rules: { 'no-restricted-syntax': ['error', ...queryBuilderBan] },
  },
  {
    files: ['libs/*/src/**/*.ts'],
    ignores: ['libs/testing/**', ...TESTS],
    rules: { 'no-restricted-syntax': ['error', ...queryBuilderBan, ...sendTimeoutBan] },
  },
  {
    files: ['apps/*/src/**/*.ts'],
    ignores: ['apps/gateway/**', ...TESTS],
    rules: { 'no-restricted-syntax': ['error', ...serviceEnhancerBan, ...queryBuilderBan, ...sendTimeoutBan] },
  },
  {
    files: ['apps/*/src/**/*.spec.ts'],
    ignores: ['apps/gateway/**'],
    rules: { 'no-restricted-syntax': ['error', ...serviceEnhancerBan] },
  },
];
