/**
 * Who may import an entity or a repository (docs/contributing/service-template.md): the import
 * rules of the layout that Nx's project tags cannot see, since they are about folders inside one
 * app. `npm run lint` runs them (`depcruise`), and `test/deploy/layout-rules.spec.ts` proves each
 * fails on a deliberate violation. Where such files live, and TypeORM's data-access surface, are
 * ESLint's (`eslint.config.mjs`); imports between projects are Nx's (`@nx/enforce-module-boundaries`).
 *
 * A feature is the first folder under `apps/<service>/src/` (`apps/invocation/src/workflows/`),
 * whatever sub-folders it has (`workflows/deployments/`, `workflows/runs/`).
 */

const { join } = require('node:path');

/** Test code: specs beside the code, each project's `test/` folder, the repository's `test/`. */
const TESTS = ['[.-]spec\\.ts$', '^(apps|libs|tools)/[^/]+/test/', '^test/'];

const ENTITY = '\\.entity\\.ts$';
const REPOSITORY = '\\.repository\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'entity-of-another-feature',
      comment:
        "A feature's entities (type imports included) are imported only by its own files, the service's database/ folder and tests; other folders call the feature's service or repository.",
      severity: 'error',
      from: { path: '^apps/([^/]+)/src/([^/]+)/', pathNot: [...TESTS, '^apps/[^/]+/src/database/'] },
      to: { path: ENTITY, pathNot: '^apps/$1/src/$2/' },
    },
    {
      name: 'entity-of-another-service',
      comment: "A service's database/ folder (data source, migrations) lists the service's own entities only.",
      severity: 'error',
      from: { path: '^apps/([^/]+)/src/database/' },
      to: { path: ENTITY, pathNot: '^apps/$1/src/' },
    },
    {
      name: 'entity-outside-a-feature',
      comment: "Code outside a service's features (its bootstrap, libraries, tools) never imports an entity.",
      severity: 'error',
      from: { pathNot: [...TESTS, '^apps/[^/]+/src/[^/]+/'] },
      to: { path: ENTITY },
    },
    {
      name: 'repository-of-another-service',
      comment: "A service's repositories are its own: another service asks it over NATS.",
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: TESTS },
      to: { path: REPOSITORY, pathNot: '^apps/$1/' },
    },
    {
      name: 'repository-outside-apps',
      comment: "Libraries and tools never import a service's repository.",
      severity: 'error',
      from: { path: '^(libs|tools)/', pathNot: TESTS },
      to: { path: REPOSITORY },
    },
  ],
  options: {
    // Type-only imports count: `import type { XEntity }` ties a folder to another feature's table as much as a value import.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(__dirname, 'tsconfig.json') },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|coverage|\\.nx|tmp)/' },
    includeOnly: '^(apps|libs|tools|test)/',
    moduleSystems: ['es6', 'cjs'],
    cache: false,
  },
};
