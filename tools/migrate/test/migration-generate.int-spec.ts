import { DOMAIN_SERVICES } from '@waggle/contracts';
import { migrateAll, serviceDataSourceOptions } from '@waggle/database';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client } from 'pg';
import { Column, DataSource, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { generateMigration, type GenerateMigrationResult } from '../src/generate-migration';

// The integration tier's setup points DATABASE_URL at the test database (test/setup/test-env.ts).
const TEST_DATABASE_URL = String(process.env.DATABASE_URL);

const SCHEMA = 'migration_fixture';

// One table in two shapes: before and after a change a developer makes to an entity.
@Entity({ name: 'widgets' })
class WidgetBefore {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;
}

@Entity({ name: 'widgets' })
@Index('IDX_widgets_name', ['name'])
class WidgetAfter {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'integer', default: 0 })
  count!: number;
}

const EMPTY_INDEX = `import type { MigrationInterface } from 'typeorm';

/** Every migration of this service, oldest first. \`npm run migration:generate\` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
];
`;

/**
 * The generated files as a service would load them: through its index, compiled like any
 * source. Jest keeps a file's first contents for the whole run, so each load reads a fresh
 * copy of the folder.
 */
function registered(migrationsDir: string): Array<new () => unknown> {
  const copy = mkdtempSync(join(tmpdir(), 'waggle-migrations-loaded-'));
  cpSync(migrationsDir, copy, { recursive: true });
  try {
    return (require(join(copy, 'index.ts')) as { MIGRATIONS: Array<new () => unknown> }).MIGRATIONS;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function fixtureOptions(entities: Array<new () => unknown>, migrations: Array<new () => unknown>, databaseUrl = TEST_DATABASE_URL) {
  return serviceDataSourceOptions({ schema: SCHEMA, databaseUrl, entities, migrations, applicationName: 'waggle-migration-generate-test' });
}

function databaseNamed(name: string): string {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

const testDatabase = decodeURIComponent(new URL(TEST_DATABASE_URL).pathname.slice(1));

async function query<T>(sql: string, parameters: unknown[] = [], url = databaseNamed('postgres')): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Scratch databases the generator made next to the test database and left behind. */
const leftoverScratchDatabases = () =>
  query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${testDatabase}_scratch_%`]).then((rows) =>
    rows.map((row) => row.datname),
  );

describe('migration:generate', () => {
  let migrationsDir: string;

  beforeAll(() => {
    migrationsDir = mkdtempSync(join(tmpdir(), 'waggle-migrations-'));
    writeFileSync(join(migrationsDir, 'index.ts'), EMPTY_INDEX);
  });

  afterAll(() => {
    rmSync(migrationsDir, { recursive: true, force: true });
  });

  const generate = (name: string, entities: Array<new () => unknown>, now?: number): Promise<GenerateMigrationResult> =>
    generateMigration({
      options: fixtureOptions(entities, registered(migrationsDir)),
      databaseUrl: TEST_DATABASE_URL,
      migrationsDir,
      name,
      command: `npm run migration:generate -- fixture ${name}`,
      now,
    });
  const written = (result: GenerateMigrationResult) => {
    if (result.status !== 'written') throw new Error(`expected a migration to be written, got ${result.status}`);
    return { ...result, source: readFileSync(result.file, 'utf8') };
  };
  const files = () => readdirSync(migrationsDir).sort();

  it('writes the first migration of a new entity and registers it', async () => {
    const first = written(await generate('create widgets', [WidgetBefore]));
    expect(basename(first.file)).toMatch(/^\d{13}-create-widgets\.ts$/);
    expect(first.className).toMatch(/^CreateWidgets\d{13}$/);
    expect(first.source).toContain(`export class ${first.className} implements MigrationInterface {`);
    expect(first.source).toMatch(
      /await queryRunner\.query\(`CREATE TABLE "migration_fixture"\."widgets" \("id" uuid NOT NULL DEFAULT gen_random_uuid\(\), "name" text NOT NULL, CONSTRAINT "PK_\w+" PRIMARY KEY \("id"\)\)`\);/,
    );
    expect(first.source).toContain('await queryRunner.query(`DROP TABLE "migration_fixture"."widgets"`);');
    expect(readFileSync(join(migrationsDir, 'index.ts'), 'utf8')).toContain(
      `import { ${first.className} } from './${basename(first.file, '.ts')}';`,
    );
    expect(registered(migrationsDir).map((migration) => migration.name)).toEqual([first.className]);
  });

  it('writes nothing when the entities match the migrations', async () => {
    const before = files();
    const index = readFileSync(join(migrationsDir, 'index.ts'), 'utf8');
    await expect(generate('nothing to do', [WidgetBefore])).resolves.toEqual({ status: 'no_changes' });
    expect(files()).toEqual(before);
    expect(readFileSync(join(migrationsDir, 'index.ts'), 'utf8')).toBe(index);
  });

  it('writes the change of an entity as the next migration, after every earlier one', async () => {
    const [firstFile] = files().filter((file) => file !== 'index.ts');
    // A clock behind the newest file still yields a later timestamp: files sort in run order.
    const second = written(await generate('add widget count', [WidgetAfter], 1_000_000_000_000));
    expect(basename(second.file)).toBe(`${Number(firstFile.slice(0, 13)) + 1}-add-widget-count.ts`);
    expect(second.source).toContain(
      `await queryRunner.query(\`ALTER TABLE "migration_fixture"."widgets" ADD "count" integer NOT NULL DEFAULT '0'\`);`,
    );
    expect(second.source).toContain(
      'await queryRunner.query(`CREATE INDEX "IDX_widgets_name" ON "migration_fixture"."widgets"  ("name") `);',
    );
    // Down undoes up in reverse order.
    expect(second.source.indexOf('DROP INDEX "migration_fixture"."IDX_widgets_name"')).toBeLessThan(
      second.source.indexOf('DROP COLUMN "count"'),
    );
    expect(registered(migrationsDir).map((migration) => migration.name)).toEqual([
      basename(firstFile, '.ts').replace(/^(\d+)-create-widgets$/, 'CreateWidgets$1'),
      second.className,
    ]);
    await expect(generate('still nothing', [WidgetAfter])).resolves.toEqual({ status: 'no_changes' });
  });

  it('writes migrations that run up and down', async () => {
    const url = databaseNamed(`${testDatabase}_generated_${randomBytes(4).toString('hex')}`);
    try {
      await migrateAll(url, [{ service: 'fixture', options: fixtureOptions([WidgetAfter], registered(migrationsDir), url) }]);
      const columns = () =>
        query<{ column_name: string }>(
          "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'widgets' ORDER BY column_name",
          [SCHEMA],
          url,
        ).then((rows) => rows.map((row) => row.column_name));
      expect(await columns()).toEqual(['count', 'id', 'name']);
      const dataSource = await new DataSource({
        ...fixtureOptions([WidgetAfter], registered(migrationsDir), url),
        logging: false,
      }).initialize();
      try {
        await dataSource.undoLastMigration();
        expect(await columns()).toEqual(['id', 'name']);
        await dataSource.undoLastMigration();
        expect(await columns()).toEqual([]);
      } finally {
        await dataSource.destroy();
      }
    } finally {
      await query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
    }
  });

  it('leaves no scratch database behind', async () => {
    expect(await leftoverScratchDatabases()).toEqual([]);
  });
});

describe('npm run migration:generate (the built command)', () => {
  const command = join(__dirname, '../../../dist/tools/migrate/src/generate.js');
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [command, ...args],
        { env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL } },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
    });
  const migrationFiles = () =>
    DOMAIN_SERVICES.flatMap((service) =>
      readdirSync(join(__dirname, '../../../apps', service, 'src/database/migrations')).map((file) => `${service}/${file}`),
    );

  it.each(DOMAIN_SERVICES)('finds no changes in %s and writes nothing', async (service) => {
    const before = migrationFiles();
    const { code, stdout } = await run([service, 'nothing-to-do']);
    expect(stdout).toBe(`migration:generate: ${service}: no changes, its entities match its migrations; nothing written\n`);
    expect(code).toBe(1);
    expect(migrationFiles()).toEqual(before);
    expect(await leftoverScratchDatabases()).toEqual([]);
  });

  it('names the services when given an unknown one', async () => {
    const { code, stderr } = await run(['nope', 'x']);
    expect(code).toBe(64);
    expect(stderr).toContain('unknown service "nope"');
    expect(stderr).toContain(`service: ${DOMAIN_SERVICES.join(', ')}`);
  });

  it('refuses a name that cannot make a class name, before touching the database', async () => {
    const { code, stderr } = await run(['catalog', '42']);
    expect(code).toBe(1);
    expect(stderr).toBe('migration:generate: migration name "42" must start with a letter (e.g. add-widget-count)\n');
  });
});
