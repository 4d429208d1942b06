import { randomUUID } from 'node:crypto';
import { useMigrationClient } from '@waggle/testing';
import { AddRequestTraceId1795600100001 } from '../src/database/migrations/1795600100001-add-request-trace-id';

/**
 * The migration that adds `trace_id` to the request ledger, run against a row of the old
 * schema: inside one transaction the column is dropped again (the schema before it), an old
 * row written, `up` and `down` run, and everything is rolled back.
 */
describe('migration AddRequestTraceId1795600100001', () => {
  const migration = new AddRequestTraceId1795600100001();
  const db = useMigrationClient();
  const { runner } = db;

  it('keeps every run recorded before it, with a null trace id, and down removes only the column', async () => {
    await db.client.query('BEGIN');
    try {
      await db.client.query('ALTER TABLE invocation.requests DROP COLUMN trace_id');
      const id = `req_${randomUUID().replace(/-/g, '')}`;
      await db.client.query(
        `INSERT INTO invocation.requests (id, workspace_id, request_type, requestable_type, requestable_id, status, metadata, generated_at)
         VALUES ($1, $2, 'prompt', 'prompt_deployment', $3, 'completed', '{"source":"old"}', now())`,
        [id, randomUUID(), randomUUID()],
      );

      await migration.up(runner);
      const { rows } = await db.client.query<{ trace_id: string | null; metadata: unknown }>(
        'SELECT trace_id, metadata FROM invocation.requests WHERE id = $1',
        [id],
      );
      expect(rows).toEqual([{ trace_id: null, metadata: { source: 'old' } }]);
      await db.client.query(`UPDATE invocation.requests SET trace_id = $2 WHERE id = $1`, [id, 'c'.repeat(32)]);

      await migration.down(runner);
      const columns = await db.client.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'invocation' AND table_name = 'requests'`,
      );
      expect(columns.rows.map((row) => row.column_name)).not.toContain('trace_id');
      expect((await db.client.query('SELECT 1 FROM invocation.requests WHERE id = $1', [id])).rowCount).toBe(1);
    } finally {
      await db.client.query('ROLLBACK');
    }
  });
});
