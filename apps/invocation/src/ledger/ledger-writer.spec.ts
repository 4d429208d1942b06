import type { Repository } from 'typeorm';
import { LedgerWriter } from './ledger-writer';
import { RequestRecordEntity } from './request-record.entity';

/** A repository whose upserts finish when the test says so. */
function controllableRepository() {
  const writes: Array<{ rows: Array<Partial<RequestRecordEntity>>; commit(): void; fail(error: Error): void }> = [];
  const repository = {
    upsert: (rows: Array<Partial<RequestRecordEntity>>) =>
      new Promise<void>((resolve, reject) => writes.push({ rows, commit: resolve, fail: reject })),
  } as unknown as Repository<RequestRecordEntity>;
  return { repository, writes };
}

const record = (id: string, status: RequestRecordEntity['status']) => Object.assign(new RequestRecordEntity(), { id, status });

describe('LedgerWriter', () => {
  it('keeps a record pending until the write that carries it has committed', async () => {
    const { repository, writes } = controllableRepository();
    const ledger = new LedgerWriter(repository);
    ledger.save(record('req_a', 'completed'));
    const flushed = ledger.flush();
    expect(writes).toHaveLength(1);
    // Being written is not written: a reader must not take the database's older row.
    expect(ledger.pendingRecord('req_a')?.status).toBe('completed');
    writes[0].commit();
    await flushed;
    expect(ledger.pendingRecord('req_a')).toBeUndefined();
  });

  it('puts a failed batch back, still pending, for the next flush', async () => {
    const { repository, writes } = controllableRepository();
    const ledger = new LedgerWriter(repository);
    ledger.save(record('req_b', 'failed'));
    const flushed = ledger.flush();
    writes[0].fail(new Error('connection lost'));
    await flushed;
    expect(ledger.pendingRecord('req_b')?.status).toBe('failed');
    const again = ledger.flush();
    expect(writes[1].rows).toEqual([expect.objectContaining({ id: 'req_b', status: 'failed' })]);
    writes[1].commit();
    await again;
    expect(ledger.pendingRecord('req_b')).toBeUndefined();
  });

  it('writes a change made during a write in the next batch', async () => {
    const { repository, writes } = controllableRepository();
    const ledger = new LedgerWriter(repository);
    const run = record('req_c', 'running');
    ledger.save(run);
    const first = ledger.flush();
    run.status = 'completed';
    ledger.save(run);
    writes[0].commit();
    await first;
    expect(ledger.pendingRecord('req_c')?.status).toBe('completed');
    const second = ledger.flush();
    writes[1].commit();
    await second;
    expect(ledger.pendingRecord('req_c')).toBeUndefined();
  });
});
