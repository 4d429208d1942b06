import { Client } from 'pg';
import { expectEventually } from './expect-eventually';

/** Backends of the test database waiting on a lock (a table's, a row's, an advisory one). */
async function waitingOnLocks(client: Client): Promise<number> {
  const { rows } = await client.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0].waiting;
}

/**
 * Makes concurrent writes race every time rather than by chance: holds `table` (a qualified
 * name) in SHARE mode, so the writes' reads and row locks pass and their inserts and updates
 * of it wait; starts every write; lets them all go at once when every one of them waits on a
 * lock (the table's, or one the code under test takes first); and answers what each one
 * answered, in order. Any write that fails fails the test, with every failure's message.
 * Run it with one write per pooled connection of the service at most, under the heavy-tier lock.
 */
export async function racedWrites<T>(table: string, writes: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const holder = new Client({ connectionString: process.env.DATABASE_URL });
  // Outside the holder's transaction: a transaction reads pg_stat_activity once and keeps that snapshot.
  const observer = new Client({ connectionString: process.env.DATABASE_URL });
  await Promise.all([holder.connect(), observer.connect()]);
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN SHARE MODE`);
    // What a write answered before the table was let go: it never waited, so it never raced.
    const early: string[] = [];
    let letGo = false;
    const settled = Promise.allSettled(
      writes.map((write) =>
        write().then(
          (value) => {
            if (!letGo) early.push('answered');
            return value;
          },
          (error: unknown) => {
            if (!letGo) early.push(String(error));
            throw error;
          },
        ),
      ),
    );
    await expectEventually(async () =>
      expect({ early, waiting: await waitingOnLocks(observer) }).toEqual({ early: [], waiting: writes.length }),
    );
    letGo = true;
    await holder.query('COMMIT');
    const outcomes = await settled;
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []))).toEqual([]);
    return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
  } finally {
    await Promise.all([holder.end(), observer.end()]);
  }
}
