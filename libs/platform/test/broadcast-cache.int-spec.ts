import { BaseEnv, BroadcastCache, loadConfig, NatsRpcClient } from '../src';
import { expectEventually } from '@waggle/testing';
import { randomUUID } from 'node:crypto';

interface Setting {
  value: string;
}

/** A "table" both replicas read from, counting the reads that reach it. */
class SettingsTable {
  readonly rows = new Map<string, string>();
  readonly failing = new Set<string>();
  reads = 0;

  async find(id: string): Promise<Setting | null> {
    this.reads += 1;
    await Promise.resolve();
    if (this.failing.has(id)) throw new Error(`${id} cannot be read`);
    const value = this.rows.get(id);
    return value === undefined ? null : { value };
  }
}

class SettingsCache extends BroadcastCache<Setting> {
  constructor(
    rpc: NatsRpcClient,
    subject: string,
    private readonly table: SettingsTable,
  ) {
    super(rpc, { subject, scopeField: 'owner_id', ttlMs: 60_000, maxScopes: 100 });
  }

  get(ownerId: string, id: string): Promise<Setting | null> {
    return this.read(ownerId, id, () => this.table.find(id));
  }
}

/**
 * The generic cache behind prompt resolution, runnable agents and workflow resolution, over
 * the real NATS: two replicas, each with its own cache, see one change at once.
 */
describe('BroadcastCache', () => {
  const env = loadConfig(BaseEnv);
  // A subject of this run only, so parallel runs do not clear each other's entries.
  const subject = `test.broadcast-cache.${randomUUID()}`;
  const table = new SettingsTable();
  let clients: NatsRpcClient[];
  let here: SettingsCache;
  let there: SettingsCache;

  beforeAll(async () => {
    clients = [new NatsRpcClient(env, 'broadcast-cache-a'), new NatsRpcClient(env, 'broadcast-cache-b')];
    await Promise.all(clients.map((client) => client.connect()));
    here = new SettingsCache(clients[0], subject, table);
    there = new SettingsCache(clients[1], subject, table);
    here.onApplicationBootstrap();
    there.onApplicationBootstrap();
    // Both subscriptions are registered with the server before anything is published.
    await Promise.all(clients.map((client) => client.connection()?.flush()));
  });

  afterAll(async () => {
    here.onApplicationShutdown();
    there.onApplicationShutdown();
    await Promise.all(clients.map((client) => client.close()));
  });

  it('reads once, shares a load in flight, and forgets a change on every replica', async () => {
    table.rows.set('s1', 'first');
    table.reads = 0;
    const [a, b] = await Promise.all([here.get('owner-1', 's1'), here.get('owner-1', 's1')]);
    expect([a, b]).toEqual([{ value: 'first' }, { value: 'first' }]);
    await there.get('owner-1', 's1');
    await here.get('owner-1', 's1');
    expect(table.reads).toBe(2);

    table.rows.set('s1', 'second');
    here.changed('owner-1');
    // Forgotten here at once, before any message could arrive.
    await expect(here.get('owner-1', 's1')).resolves.toEqual({ value: 'second' });
    // And on the other replica once the message has arrived.
    await expectEventually(async () => expect(await there.get('owner-1', 's1')).toEqual({ value: 'second' }));
  });

  it('forgets only the scope that changed', async () => {
    table.rows.set('s2', 'kept');
    table.rows.set('s3', 'kept');
    await there.get('owner-2', 's2');
    await there.get('owner-3', 's3');
    table.rows.set('s2', 'changed');
    table.rows.set('s3', 'changed');
    here.changed('owner-2');
    await expectEventually(async () => expect(await there.get('owner-2', 's2')).toEqual({ value: 'changed' }));
    await expect(there.get('owner-3', 's3')).resolves.toEqual({ value: 'kept' });
  });

  it('keeps neither what was not found nor a failure', async () => {
    table.reads = 0;
    await expect(here.get('owner-4', 'missing')).resolves.toBeNull();
    table.rows.set('missing', 'created');
    await expect(here.get('owner-4', 'missing')).resolves.toEqual({ value: 'created' });
    table.failing.add('flaky');
    await expect(here.get('owner-4', 'flaky')).rejects.toThrow('flaky cannot be read');
    table.failing.delete('flaky');
    table.rows.set('flaky', 'read');
    await expect(here.get('owner-4', 'flaky')).resolves.toEqual({ value: 'read' });
    expect(table.reads).toBe(4);
  });

  it('does not keep a load that was in flight when its scope changed', async () => {
    table.rows.set('s5', 'old');
    const stale = here.get('owner-5', 's5');
    here.forget('owner-5');
    await stale;
    table.rows.set('s5', 'new');
    await expect(here.get('owner-5', 's5')).resolves.toEqual({ value: 'new' });
  });
});
