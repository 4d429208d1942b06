// Tiers, each its own command (see package.json): unit specs beside the code,
// integration specs against the real PostgreSQL/Redis/NATS, end-to-end specs that start
// the built apps and speak HTTP to the gateway.
const fs = require('node:fs');
const path = require('node:path');

const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));
delete swcrc.$schema;
// ES-module code Jest compiles to CommonJS: file-type and what it imports (ES modules only), and
// unpdf, whose CommonJS build import()s its PDF.js bundle. Before Node 24.9 Jest's CommonJS runtime
// can neither require() nor import() an ES module (without --experimental-vm-modules), while
// Node itself (20.19+; the project pins 24) does both, so the built apps load them as they are.
const esmOnlyPackages = ['file-type', 'strtok3', 'token-types', 'uint8array-extras', '@tokenizer/inflate', '@borewit/text-codec', 'unpdf'];
const esmOnly = `/node_modules/(?:${esmOnlyPackages.join('|')})/`;
const shared = {
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false, jsc: { ...swcrc.jsc, baseUrl: __dirname } }],
    [`${esmOnly}.+\\.[cm]?js$`]: [
      '@swc/jest',
      { swcrc: false, module: { type: 'commonjs' }, jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(?:${esmOnlyPackages.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@waggle/(.*)$': '<rootDir>/libs/$1/src',
    // unpdf loads its PDF.js bundle with import(), exported for `import` only.
    '^unpdf/pdfjs$': '<rootDir>/node_modules/unpdf/dist/pdfjs.mjs',
  },
};

module.exports = {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts', '<rootDir>/test/deploy/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: [
        '<rootDir>/test/integration/**/*.int-spec.ts',
        '<rootDir>/apps/*/test/**/*.int-spec.ts',
        '<rootDir>/libs/*/test/**/*.int-spec.ts',
        '<rootDir>/tools/*/test/**/*.int-spec.ts',
      ],
      globalSetup: '<rootDir>/test/setup/reset-test-database.ts',
      setupFiles: ['<rootDir>/test/setup/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/timeouts.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/reset-test-database.ts',
      setupFiles: ['<rootDir>/test/setup/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/timeouts.ts'],
    },
    // Generated input (fast-check) against the running stack, over HTTP like the e2e tier.
    {
      ...shared,
      displayName: 'generated',
      testMatch: ['<rootDir>/test/generated/**/*.gen-spec.ts'],
      globalSetup: '<rootDir>/test/setup/reset-test-database.ts',
      setupFiles: ['<rootDir>/test/setup/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/timeouts.ts'],
    },
    // The web console in a real headless Chromium (scripts/install-browser.sh) against the running stack.
    {
      ...shared,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser-spec.ts'],
      globalSetup: '<rootDir>/test/setup/reset-test-database.ts',
      setupFiles: ['<rootDir>/test/setup/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/timeouts.ts'],
    },
    // Faults against infrastructure the tier starts itself (its own PostgreSQL, Redis and NATS),
    // and two replicas of every app under the supervisor. CHAOS_SHORT=1 is the form `npm test` runs.
    {
      ...shared,
      displayName: 'chaos',
      testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'],
      setupFiles: ['<rootDir>/test/setup/test-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/setup/timeouts.ts'],
    },
  ],
};
