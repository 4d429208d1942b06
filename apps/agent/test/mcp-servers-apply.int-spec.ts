import { AgentPatterns, type AppliedMcpServer } from '@waggle/contracts';
import { racedWrites, startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';

/**
 * An apply file's `mcp_servers:` applied concurrently, over NATS as the CLI sends it: each apply
 * reads a server, then creates or updates it, so two applies of one new server both read
 * nothing and both create it. The one that comes second finds it under the workspace's lock
 * and compares with it (the same file answers `unchanged`), rather than failing as a create of
 * an existing id. racedWrites makes the race happen every time: every apply has read nothing
 * before any of them writes. The servers are disabled, so no connection is tested.
 */
describe('agent service over NATS: mcp_servers applied concurrently', () => {
  /** Fewer than the service's 10 pooled connections: each waiting apply holds one. */
  const CONCURRENT = 8;
  let service: ServiceUnderTest;
  let database: Client;

  const apply = (workspaceId: string, ids: string[]): Promise<AppliedMcpServer[]> =>
    service.send(AgentPatterns.applyMcpServers, {
      workspace_id: workspaceId,
      mcp_servers: ids.map((id) => ({ id, name: `Server ${id}`, url: 'https://mcp.example.com/mcp', enabled: false })),
    });

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await service?.stop();
    await database?.end();
  });

  it('answers every one of concurrent first applies of the same servers: each created once, unchanged for the others', async () => {
    const workspaceId = randomUUID();
    const ids = ['raced-a', 'raced-b'];
    const answers = await racedWrites(
      'agent.mcp_servers',
      Array.from({ length: CONCURRENT }, (_, i) => () => apply(workspaceId, i % 2 === 0 ? ids : [...ids].reverse())),
    );
    for (const id of ids) {
      const actions = answers.flat().flatMap((applied) => (applied.id === id ? [applied.action] : []));
      expect(actions.sort()).toEqual(['created', ...Array<string>(CONCURRENT - 1).fill('unchanged')]);
    }
    const { rows } = await database.query<{ id: string }>('SELECT id FROM agent.mcp_servers WHERE workspace_id = $1 ORDER BY id', [
      workspaceId,
    ]);
    expect(rows.map((row) => row.id)).toEqual(ids);
  });
});
