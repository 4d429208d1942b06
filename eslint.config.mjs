import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

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
  {
    files: ['apps/*/test/**/*.ts', 'libs/*/test/**/*.ts', 'tools/*/test/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': ['error', moduleBoundaries({ tests: true })] },
  },
  {
    files: ['apps/*/src/**/*.ts'],
    ignores: ['apps/gateway/**'],
    rules: { 'no-restricted-syntax': ['error', ...serviceEnhancerBan] },
  },
];
