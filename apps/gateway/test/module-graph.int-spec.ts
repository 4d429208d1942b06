import { REPO_ROOT } from '@waggle/testing';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Database packages: the gateway never touches a database, so it must not even load them. */
const DATABASE_PACKAGE = /\/node_modules\/(?:typeorm|pg|pg-[^/]+|@nestjs\/typeorm)\//;

/**
 * Loads the built gateway's module graph as `main.js` does (telemetry first, then the
 * bootstrap), in a process of its own so nothing this test runner loaded counts, and lists
 * every file it required.
 */
async function gatewayModuleGraph(): Promise<string[]> {
  const sources = join(REPO_ROOT, 'dist/apps/gateway/src');
  const script = `
    require(${JSON.stringify(join(sources, 'telemetry.js'))});
    require(${JSON.stringify(join(sources, 'bootstrap.js'))});
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: REPO_ROOT });
  return JSON.parse(stdout) as string[];
}

describe('the gateway module graph', () => {
  it('holds no TypeORM or PostgreSQL driver module', async () => {
    const graph = await gatewayModuleGraph();
    // The graph was really loaded: the bootstrap and the platform barrel are in it.
    expect(graph).toContainEqual(expect.stringMatching(/dist\/apps\/gateway\/src\/bootstrap\.js$/));
    expect(graph).toContainEqual(expect.stringMatching(/dist\/libs\/platform\/src\/index\.js$/));
    expect(graph.filter((file) => DATABASE_PACKAGE.test(file))).toEqual([]);
  });
});
