import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkSqlSnapshots, REPOSITORY_ROOT } from './sql-snapshot';

/**
 * Every repository's SQL is checked in beside it (`<name>.repository.sql`), so a change to a
 * query shows in review as a diff of SQL. `npm run sql:snapshot` rewrites the files.
 */
describe('SQL snapshots', () => {
  const write = process.env.SQL_SNAPSHOT_UPDATE === '1';

  it('match the statements every repository declares', () => {
    const drift = checkSqlSnapshots({ write });
    if (write) for (const file of drift.stale) rmSync(join(REPOSITORY_ROOT, file));
    expect(drift.outsideRepositories).toEqual([]);
    if (write) return;
    const hint = 'run `npm run sql:snapshot` and review the diff';
    expect({ changed: drift.changed, stale: drift.stale, hint }).toEqual({ changed: [], stale: [], hint });
  });
});

describe('checkSqlSnapshots', () => {
  const { mkdtempSync, mkdirSync, writeFileSync, readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
  const { tmpdir } = jest.requireActual<typeof import('node:os')>('node:os');

  function treeWith(statement: string): string {
    const root = mkdtempSync(join(tmpdir(), 'sql-snapshot-'));
    mkdirSync(join(root, 'apps/demo/src/things'), { recursive: true });
    mkdirSync(join(root, 'libs'), { recursive: true });
    const source = `import { defineSql, sql } from '@waggle/database';\nexport const SQL = defineSql(__filename, { byName: sql(${JSON.stringify(statement)}) });\n`;
    writeFileSync(join(root, 'apps/demo/src/things/things.repository.ts'), source);
    return root;
  }

  it('writes a missing snapshot, then finds a changed statement and a stale file', () => {
    const root = treeWith('SELECT * FROM demo.things WHERE name = $1');
    expect(checkSqlSnapshots({ write: true, root }).changed).toEqual(['apps/demo/src/things/things.repository.sql']);
    expect(readFileSync(join(root, 'apps/demo/src/things/things.repository.sql'), 'utf8')).toContain(
      '-- byName\nSELECT * FROM demo.things WHERE name = $1;',
    );
    expect(checkSqlSnapshots({ write: false, root }).changed).toEqual([]);

    writeFileSync(join(root, 'apps/demo/src/things/things.repository.sql'), 'SELECT 1;\n');
    writeFileSync(join(root, 'apps/demo/src/things/gone.repository.sql'), 'SELECT 1;\n');
    const drift = checkSqlSnapshots({ write: false, root });
    expect(drift.changed).toEqual(['apps/demo/src/things/things.repository.sql']);
    expect(drift.stale).toEqual(['apps/demo/src/things/gone.repository.sql']);
  });
});
