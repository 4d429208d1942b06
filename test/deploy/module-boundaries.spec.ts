import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The Nx tags really constrain imports: these would-be files break the rules, and the
 * project's ESLint configuration must say so.
 */
describe('module boundaries', () => {
  const root = join(__dirname, '../..');
  beforeAll(() => {
    // The boundary rule reads Nx's project graph; make sure it exists.
    execFileSync(process.execPath, [join(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'ignore',
    });
  });

  // ESLint runs as its own process: its flat config is ESM, which jest's VM cannot load.
  const boundaryErrors = async (file: string, code: string) => {
    let output: string;
    try {
      output = execFileSync(
        process.execPath,
        [join(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', join(root, file), '--format', 'json'],
        {
          cwd: root,
          input: code,
          env: { ...process.env, NX_DAEMON: 'false' },
        },
      ).toString();
    } catch (error) {
      output = (error as { stdout: Buffer }).stdout.toString();
    }
    const [result] = JSON.parse(output) as Array<{ messages: Array<{ ruleId: string; message: string }> }>;
    return result.messages.filter((message) => message.ruleId === '@nx/enforce-module-boundaries').map((message) => message.message);
  };

  it('forbids database and server code in contracts', async () => {
    expect(
      await boundaryErrors('libs/contracts/src/probe.ts', "import { DataSource } from 'typeorm';\nexport const probe = DataSource;\n"),
    ).toEqual([expect.stringContaining('typeorm')]);
  });

  it('forbids an app importing another app', async () => {
    const errors = await boundaryErrors(
      'apps/catalog/src/probe.ts',
      "import { bootstrap } from '../../gateway/src/bootstrap';\nexport const probe = bootstrap;\n",
    );
    expect(errors.length).toBeGreaterThan(0);
  });

  it('forbids database code in the gateway', async () => {
    expect(
      await boundaryErrors('apps/gateway/src/probe.ts', "import { Repository } from 'typeorm';\nexport const probe = Repository;\n"),
    ).toEqual([expect.stringContaining('typeorm')]);
  });

  it('allows an app to use the libraries through their entry points', async () => {
    expect(
      await boundaryErrors(
        'apps/catalog/src/probe.ts',
        "import { WaggleException } from '@waggle/errors';\nexport const probe = WaggleException;\n",
      ),
    ).toEqual([]);
  });
});
