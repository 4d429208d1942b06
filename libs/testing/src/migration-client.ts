import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';

export interface MigrationClient {
  /** The spec's own connection to the test database (connected before its tests, closed after). */
  readonly client: Client;
  /** What a migration's `up` and `down` use of a QueryRunner: `query`, answering rows, through `client`. */
  readonly runner: QueryRunner;
}

/**
 * For a migration spec: one connection of its own, so the spec can drop the migration's
 * columns, write rows of the old shape, run `up` and `down` and roll it all back inside one
 * transaction. Call it in the `describe` body: it registers the connect and the close.
 */
export function useMigrationClient(): MigrationClient {
  let client: Client | undefined;
  beforeAll(async () => {
    client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });
  const connected = (): Client => {
    if (!client) throw new Error('useMigrationClient: the client is connected in beforeAll');
    return client;
  };
  const runner = {
    query: async (sql: string, parameters?: unknown[]) => (await connected().query(sql, parameters)).rows as unknown,
  } as unknown as QueryRunner;
  return {
    get client() {
      return connected();
    },
    runner,
  };
}
