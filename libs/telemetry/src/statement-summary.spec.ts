import { summarizeStatement } from './statement-summary';

describe('summarizeStatement', () => {
  it('names the operation and table of a parameterised TypeORM statement and keeps its $n parameters', () => {
    expect(summarizeStatement('SELECT "r"."id" AS "r_id" FROM "invocation"."workflow_runs" "r" WHERE "r"."id" = $1 LIMIT 1')).toEqual({
      text: 'SELECT "r"."id" AS "r_id" FROM "invocation"."workflow_runs" "r" WHERE "r"."id" = $1 LIMIT ?',
      operation: 'SELECT',
      table: 'workflow_runs',
    });
  });

  it('replaces string, escaped, dollar-quoted and numeric literals, never a name that holds digits', () => {
    const summary = summarizeStatement(
      "UPDATE step_runs2 SET output = 'it''s secret', note = E'x\\n', body = $tag$sk-live-123$tag$, n = -4.5e3 WHERE id = $12",
    );
    expect(summary).toEqual({
      text: 'UPDATE step_runs2 SET output = ?, note = ?, body = ?, n = ? WHERE id = $12',
      operation: 'UPDATE',
      table: 'step_runs2',
    });
    expect(summary.text).not.toContain('secret');
    expect(summary.text).not.toContain('sk-live');
  });

  it('reads INSERT INTO, DELETE FROM and UPDATE ONLY', () => {
    expect(summarizeStatement('insert into "Ledger"."request_records"("id") VALUES ($1)')).toMatchObject({
      operation: 'INSERT',
      table: 'request_records',
    });
    expect(summarizeStatement('DELETE FROM chunks WHERE document_id = $1')).toMatchObject({ operation: 'DELETE', table: 'chunks' });
    expect(summarizeStatement('UPDATE ONLY "Public"."Jobs" SET a = 1')).toMatchObject({ operation: 'UPDATE', table: 'Jobs' });
  });

  it("takes a WITH statement's main operation, not its CTE's", () => {
    expect(
      summarizeStatement(
        'WITH picked AS (SELECT id FROM queue WHERE state = 1) UPDATE jobs SET state = 2 FROM picked WHERE jobs.id = picked.id',
      ),
    ).toMatchObject({
      operation: 'UPDATE',
      table: 'jobs',
    });
  });

  it('names a statement without a table by its operation alone', () => {
    expect(summarizeStatement('COMMIT')).toEqual({ text: 'COMMIT', operation: 'COMMIT' });
    expect(summarizeStatement('SELECT 1')).toEqual({ text: 'SELECT ?', operation: 'SELECT' });
    expect(summarizeStatement('  ')).toEqual({ text: '  ' });
  });
});
