import { Logger } from '@nestjs/common';
import { DeadLetterPatterns, LedgerStream, type DeadLetterReplay, type DeadLetterSummary, type LedgerRecord } from '@waggle/contracts';
import { newRequestId } from '@waggle/platform';
import { LEDGER_PUBLISH_ATTEMPTS, LedgerPublisher } from '@waggle/runs';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { cliJson, expectEventually, startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import type { JetStreamManager } from 'nats';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';

/**
 * Bounded retries of the request ledger over its real parts (the invocation service started by
 * its own bootstrap, the JetStream stream, PostgreSQL): a record PostgreSQL refuses, or its
 * publisher can never publish, is dead-lettered while its neighbours are written; an outage is
 * waited out with nothing dead-lettered; dead letters are listed and replayed over NATS.
 */
describe('the request ledger: dead letters', () => {
  const workspaceId = randomUUID();
  let service: ServiceUnderTest;
  let publisher: LedgerPublisher;
  let db: Client;
  let manager: JetStreamManager;

  const record = (overrides: Partial<LedgerRecord> = {}): LedgerRecord => ({
    request_id: newRequestId(),
    workspace_id: workspaceId,
    request_type: 'agent',
    requestable_type: 'agent',
    requestable_id: randomUUID(),
    deployment: null,
    variant: null,
    variant_id: null,
    version_id: null,
    version: null,
    model: 'gpt-4o-mini',
    status: 'completed',
    message: 'What is on my calendar?',
    metadata: { channel: 'web' },
    user: null,
    generated_at: new Date().toISOString(),
    started_at: new Date().toISOString(),
    ended_at: new Date().toISOString(),
    duration_ms: 12,
    usage: { total_tokens: 7 },
    data: { response: 'Nothing today.' },
    ...overrides,
  });
  const ids = (records: LedgerRecord[]) => records.map((one) => one.request_id).sort();
  const storedOf = async (requestIds: string[]) =>
    (await db.query<{ id: string }>('SELECT id FROM invocation.requests WHERE id = ANY($1) ORDER BY id', [requestIds])).rows.map(
      (row) => row.id,
    );
  const listLedger = () => service.send(DeadLetterPatterns.list.invocation, { source: 'ledger' });
  const replay = (id: string) => service.send(DeadLetterPatterns.replay.invocation, { source: 'ledger', id });
  const lastSeq = async () => (await manager.streams.info(LedgerStream.name)).state.last_seq;

  /** Everything published is acknowledged by the owner's consumer: nothing waits, nothing is unacknowledged, the stream is empty. */
  async function streamSettled(): Promise<void> {
    await expectEventually(
      async () => {
        const { state } = await manager.streams.info(LedgerStream.name);
        const consumer = await manager.consumers.info(LedgerStream.name, LedgerStream.consumer);
        expect({
          waiting: consumer.num_pending,
          unacknowledged: consumer.num_ack_pending,
          acknowledged_to: consumer.ack_floor.stream_seq,
          kept: state.messages,
        }).toEqual({
          waiting: 0,
          unacknowledged: 0,
          acknowledged_to: state.last_seq,
          kept: 0,
        });
      },
      { timeoutMs: 20_000 },
    );
  }

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'silent' });
    // A publisher of its own, as another service's: nothing it sends is in the app's memory.
    publisher = new LedgerPublisher(service.rpc, { publisher: 'test-publisher' });
    const connection = service.rpc.connection();
    if (!connection) throw new Error('NATS is not connected');
    manager = await connection.jetstreamManager();
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await publisher?.close();
    await service?.stop();
    await db?.end();
  });

  afterEach(() => jest.restoreAllMocks());

  it('writes every good record of a message, dead-letters the one PostgreSQL refuses, and acknowledges the message', async () => {
    const good = Array.from({ length: 200 }, () => record());
    // The upsert makes string values storable, not keys: jsonb refuses the \u0000 escape of this
    // key (SQLSTATE 22P05) however often it is written.
    const bad = record({ metadata: { 'ticket\u0000id': 7 } });
    const before = await lastSeq();
    for (const one of [...good.slice(0, 100), bad, ...good.slice(100)]) publisher.save(one);
    await publisher.flush();
    expect(publisher.pending).toBe(0);
    // They travelled together, in one message.
    expect(await lastSeq()).toBe(before + 1);

    await streamSettled();
    expect(await storedOf(ids(good))).toEqual(ids(good));
    expect(await storedOf([bad.request_id])).toEqual([]);
    const listed = (await listLedger()).filter((letter) => letter.request_id === bad.request_id);
    expect(listed).toEqual([
      {
        source: 'ledger',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        request_id: bad.request_id,
        workspace_id: workspaceId,
        error: expect.stringContaining('[SQLSTATE 22P05]'),
        attempts: 1,
        dead_lettered_at: expect.any(String),
        payload: JSON.stringify(bad),
      },
    ]);
    const [letter] = listed as [DeadLetterSummary];
    // Kept as JSON text, so the escape jsonb refused is there as it came.
    expect(letter.payload).toContain('"ticket\\u0000id"');
    const { rows } = await db.query(
      'SELECT record, stream_seq, dead_lettered_by, replayed_at FROM invocation.ledger_dead_letters WHERE id = $1',
      [letter.id],
    );
    expect(rows).toEqual([
      { record: JSON.stringify(bad), stream_seq: String(before + 1), dead_lettered_by: 'ledger-writer', replayed_at: null },
    ]);

    // The operator's view is the same through the CLI.
    expect(await cliJson<DeadLetterSummary[]>(['dead-letters', 'list', '--source', 'ledger'])).toContainEqual(letter);

    // Replayed, it is refused again: it stays listed, with the new error and one more attempt.
    expect(await replay(letter.id)).toEqual({
      source: 'ledger',
      id: letter.id,
      outcome: 'failed',
      error: expect.stringContaining('[SQLSTATE 22P05]'),
    });
    expect((await listLedger()).filter((listedAgain) => listedAgain.id === letter.id)).toEqual([
      { ...letter, attempts: 2, error: expect.stringContaining('22P05') },
    ]);
    expect(await cliJson<DeadLetterReplay>(['dead-letters', 'replay', 'ledger', letter.id])).toMatchObject({ outcome: 'failed' });
    expect(await storedOf([bad.request_id])).toEqual([]);
    await expect(replay(randomUUID())).rejects.toMatchObject({ code: 'not_found' });
    await expect(replay('not-a-uuid')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('dead-letters a record its publisher can never publish after its bounded attempts, stores the others, and logs it once', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    const good = Array.from({ length: 20 }, () => record());
    // An object that refers to itself (as SDK objects do): JSON.stringify throws on every try.
    const data: Record<string, unknown> = { response: 'half an answer' };
    data.self = data;
    const bad = record({ status: 'failed', data });
    for (const one of [...good, bad]) publisher.save(one);

    expect(await publisher.stored(bad.request_id)).toBe(true);
    expect(publisher.pending).toBe(0);
    await streamSettled();
    expect(await storedOf(ids(good))).toEqual(ids(good));
    expect(await storedOf([bad.request_id])).toEqual([]);

    const letter = (await listLedger()).find((listed) => listed.request_id === bad.request_id);
    expect(letter).toMatchObject({
      source: 'ledger',
      workspace_id: workspaceId,
      attempts: LEDGER_PUBLISH_ATTEMPTS,
      error: expect.stringMatching(
        new RegExp(`^could not be published after ${LEDGER_PUBLISH_ATTEMPTS} attempts: Converting circular structure to JSON`),
      ),
    });
    expect(JSON.parse(letter?.payload ?? '')).toEqual({ ...bad, data: { response: 'half an answer', self: '[Circular]' } });
    const { rows } = await db.query('SELECT dead_lettered_by, truncated FROM invocation.ledger_dead_letters WHERE id = $1', [letter?.id]);
    expect(rows).toEqual([{ dead_lettered_by: 'test-publisher', truncated: false }]);

    // No line per attempt: one error line names it where it was given up on, one warning where it was stored.
    const about = (spy: jest.SpyInstance) =>
      spy.mock.calls
        .filter(([fields]) => (fields as { request_id?: string } | undefined)?.request_id === bad.request_id)
        .map((call) => call[1]);
    expect(about(errors)).toEqual(['ledger record dead-lettered; sent to the ledger dead-letter table (invocation.dead-letters.list)']);
    expect(about(warnings)).toEqual(["a publisher's ledger dead letter was stored (invocation.dead-letters.list shows it)"]);

    // What the dead letter kept of it can be written: a replay writes it, and it is no longer listed.
    expect(await replay(letter?.id ?? '')).toEqual({ source: 'ledger', id: letter?.id, outcome: 'written', error: null });
    expect(await storedOf([bad.request_id])).toEqual([bad.request_id]);
    expect((await listLedger()).map((listed) => listed.id)).not.toContain(letter?.id);
    await expect(replay(letter?.id ?? '')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('waits out a ledger table PostgreSQL cannot reach (42P01 is no fault of the records): nothing is dead-lettered, all is written once it is back', async () => {
    const records = Array.from({ length: 5 }, () => record());
    const redeliveredBefore = (await manager.consumers.info(LedgerStream.name, LedgerStream.consumer)).num_redelivered;
    await db.query('ALTER TABLE invocation.requests RENAME TO requests_away');
    try {
      for (const one of records) publisher.save(one);
      await publisher.flush();
      expect(publisher.pending).toBe(0);
      // Refused, nak'ed with backoff and delivered again: it waits in the stream, not in the dead-letter table.
      await expectEventually(
        async () =>
          expect((await manager.consumers.info(LedgerStream.name, LedgerStream.consumer)).num_redelivered).toBeGreaterThan(
            redeliveredBefore,
          ),
        {
          timeoutMs: 15_000,
        },
      );
    } finally {
      await db.query('ALTER TABLE invocation.requests_away RENAME TO requests');
    }
    await streamSettled();
    expect(await storedOf(ids(records))).toEqual(ids(records));
    const { rows } = await db.query('SELECT count(*)::int AS count FROM invocation.ledger_dead_letters WHERE request_id = ANY($1)', [
      ids(records),
    ]);
    expect(rows).toEqual([{ count: 0 }]);
  });

  it('keeps a message that is no batch of records as a dead letter, whole, and goes on with the next', async () => {
    const connection = service.rpc.connection();
    if (!connection) throw new Error('NATS is not connected');
    await connection.jetstream().publish(LedgerStream.subject, new TextEncoder().encode('not json'));
    const after = record();
    publisher.save(after);
    await publisher.flush();
    await streamSettled();
    expect(await storedOf([after.request_id])).toEqual([after.request_id]);
    const letter = (await listLedger()).find((listed) => listed.payload === 'not json');
    expect(letter).toMatchObject({ request_id: null, workspace_id: null, error: expect.stringMatching(/^the message is not JSON/) });
  });

  it('answers only for the sources it keeps', async () => {
    await expect(service.send(DeadLetterPatterns.list.invocation, { source: 'agent-runs' })).rejects.toMatchObject({
      code: 'validation_error',
      message: 'agent-runs dead letters are kept by the agent service, not invocation',
    });
    // Its queues are listed beside the ledger (nothing failed there).
    expect(await service.send(DeadLetterPatterns.list.invocation, { source: 'prompt-runs' })).toEqual([]);
  });
});
