import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { declaredSql, sqlSnapshot, type SqlStatement } from '@waggle/database';

/** The repository root (this file is tools/migrate/src/sql-snapshot.ts, or its build under dist/). */
export const REPOSITORY_ROOT = join(__dirname, __dirname.includes('/dist/') ? '../../../..' : '../../..');

/** Every `*.repository.ts` under apps/ and libs/, relative to the root. */
export function repositoryFiles(root = REPOSITORY_ROOT): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'test') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.repository.ts')) found.push(relative(root, path));
    }
  };
  for (const top of ['apps', 'libs']) walk(join(root, top));
  return found.sort();
}

/** Every `*.repository.sql` snapshot under apps/ and libs/, relative to the root. */
function snapshotFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.repository.sql')) found.push(relative(root, path));
    }
  };
  for (const top of ['apps', 'libs']) walk(join(root, top));
  return found.sort();
}

/** Loads every repository module under `root`, so each declares its statements; answers them by source path. */
export function loadDeclaredSql(root = REPOSITORY_ROOT): Map<string, Readonly<Record<string, SqlStatement<unknown>>>> {
  const loaded = new Map<string, Readonly<Record<string, SqlStatement<unknown>>>>();
  for (const file of repositoryFiles(root)) {
    require(join(root, file));
    const source = file.replace(/\.ts$/, '');
    const statements = declaredSql().get(source);
    if (statements) loaded.set(source, statements);
  }
  return loaded;
}

export interface SnapshotDrift {
  /** Snapshot files whose text differs from the statements (or that are missing). */
  changed: string[];
  /** Snapshot files no repository declares any more. */
  stale: string[];
  /** Statements declared outside a `*.repository.ts` file (SQL lives in repositories only). */
  outsideRepositories: string[];
}

/** Compares (or, with `write`, rewrites) every repository's `.sql` snapshot. */
export function checkSqlSnapshots(options: { write: boolean; root?: string }): SnapshotDrift {
  const root = options.root ?? REPOSITORY_ROOT;
  const declared = loadDeclaredSql(root);
  const outsideRepositories = [...declaredSql().keys()].filter((source) => !source.endsWith('.repository'));
  const drift: SnapshotDrift = { changed: [], stale: [], outsideRepositories };
  const expected = new Set<string>();
  for (const [source, statements] of declared) {
    const file = `${source}.sql`;
    expected.add(file);
    const text = sqlSnapshot(statements);
    const path = join(root, file);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (current === text) continue;
    drift.changed.push(file);
    if (options.write) writeFileSync(path, text);
  }
  drift.stale = snapshotFiles(root).filter((file) => !expected.has(file));
  return drift;
}
