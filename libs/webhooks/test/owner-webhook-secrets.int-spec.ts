import type { ShownWebhookSecret } from '@waggle/contracts';
import Redis from 'ioredis';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import {
  acceptsSecret,
  OwnerWebhookSecrets,
  SecretSealer,
  WebhookRegistry,
  WebhookTargetKeeper,
  type WebhookSecretColumns,
  type WebhookSecretOwnerStore,
} from '../src';

interface Hook extends WebhookSecretColumns {
  name: string;
}

interface HookRow {
  id: string;
  workspace_id: string;
  name: string;
  webhook_secret_sealed: string;
  previous_webhook_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
}

const hookOf = (row: HookRow): Hook => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  webhookSecretSealed: row.webhook_secret_sealed,
  previousWebhookSecretSealed: row.previous_webhook_secret_sealed,
  previousSecretExpiresAt: row.previous_secret_expires_at,
});

/** Webhook owners in a table of the real test database, locked and saved as the services' repositories do. */
class HooksStore implements WebhookSecretOwnerStore<Hook> {
  /** The open transaction's client: calls inside `transaction` use it, as a DataRepository's do. */
  private readonly open = new AsyncLocalStorage<PoolClient>();

  constructor(
    private readonly pool: Pool,
    private readonly table: string,
  ) {}

  private get db(): Pool | PoolClient {
    return this.open.getStore() ?? this.pool;
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await this.open.run(client, work);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  async get(workspaceId: string, name: string, options: { lock?: boolean } = {}): Promise<Hook> {
    const { rows } = await this.db.query<HookRow>(
      `SELECT * FROM ${this.table} WHERE workspace_id = $1 AND name = $2${options.lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, name],
    );
    if (!rows[0]) throw new Error(`Hook not found: ${name}`);
    return hookOf(rows[0]);
  }

  async saveSecrets(hook: Hook): Promise<void> {
    await this.db.query(
      `UPDATE ${this.table} SET webhook_secret_sealed = $2, previous_webhook_secret_sealed = $3, previous_secret_expires_at = $4 WHERE id = $1`,
      [hook.id, hook.webhookSecretSealed, hook.previousWebhookSecretSealed, hook.previousSecretExpiresAt],
    );
  }

  async findByIds(ids: string[]): Promise<Hook[]> {
    const { rows } = await this.pool.query<HookRow>(`SELECT * FROM ${this.table} WHERE id = ANY($1::uuid[])`, [ids]);
    return rows.map(hookOf);
  }

  async idsPage(skip: number, take: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM ${this.table} ORDER BY id OFFSET $1 LIMIT $2`, [skip, take]);
    return rows.map((row) => row.id);
  }
}

describe('OwnerWebhookSecrets over PostgreSQL rows and the Redis registry', () => {
  const schema = `owner_secrets_${randomBytes(4).toString('hex')}`;
  const table = `${schema}.hooks`;
  const workspace = randomUUID();
  const pool = new Pool({ connectionString: process.env.DATABASE_URL });
  const redis = new Redis(process.env.REDIS_URL as string);
  const registry = new WebhookRegistry(redis);
  const sealer = new SecretSealer(randomBytes(32));
  const keeper = new WebhookTargetKeeper(redis, { resyncSeconds: 0, logger: console });
  const secrets = new OwnerWebhookSecrets<Hook, ShownWebhookSecret & { hook_id: string }>({
    kind: 'workflow_deployment',
    store: new HooksStore(pool, table),
    keeper,
    sealer,
    overlapSeconds: 3600,
    view: (hook, secret) => ({ hook_id: hook.id, ...secret }),
    logIdField: 'hook_id',
    logger: { log: () => undefined },
  });

  const create = async (name: string): Promise<string> => {
    const sealed = secrets.newSecrets();
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO ${table} (workspace_id, name, webhook_secret_sealed, previous_webhook_secret_sealed, previous_secret_expires_at)
       VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [workspace, name, sealed.current, sealed.previous, sealed.previousExpiresAt],
    );
    await secrets.publish([rows[0].id]);
    return rows[0].id;
  };
  const target = async (id: string) => {
    const found = await registry.get('workflow_deployment', id);
    if (!found) throw new Error(`no registry entry for ${id}`);
    return found;
  };

  beforeAll(async () => {
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(`CREATE TABLE ${table} (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(), workspace_id uuid NOT NULL, name text NOT NULL,
      webhook_secret_sealed text NOT NULL, previous_webhook_secret_sealed text, previous_secret_expires_at timestamptz,
      UNIQUE (workspace_id, name))`);
    secrets.onModuleInit();
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${schema} CASCADE`);
    await Promise.all([pool.end(), redis.quit()]);
  });

  it('keeps the secret sealed in the row and publishes a target that accepts it', async () => {
    const id = await create('orders');
    const shown = await secrets.view(workspace, 'orders');
    expect(shown).toEqual({
      hook_id: id,
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previous_secret_expires_at: null,
    });
    const { rows } = await pool.query<{ sealed: string }>(`SELECT webhook_secret_sealed AS sealed FROM ${table} WHERE id = $1`, [id]);
    expect(rows[0].sealed).not.toContain(shown.webhook_secret.slice(6));
    const published = await target(id);
    expect(published).toMatchObject({ kind: 'workflow_deployment', id, workspace_id: workspace });
    expect(acceptsSecret(published, shown.webhook_secret)).toBe(true);
  });

  it('rotates in the row and the registry: both secrets during the overlap, only the new one without', async () => {
    const id = await create('invoices');
    const before = await secrets.view(workspace, 'invoices');
    const rotated = await secrets.rotate(workspace, 'invoices', 600);
    expect(await secrets.view(workspace, 'invoices')).toEqual(rotated);
    const during = await target(id);
    expect(during.secrets.map((secret) => secret.expires_at)).toEqual([null, rotated.previous_secret_expires_at]);
    for (const secret of [before.webhook_secret, rotated.webhook_secret]) expect(acceptsSecret(during, secret)).toBe(true);

    const final = await secrets.rotate(workspace, 'invoices', 0);
    expect(final.previous_secret_expires_at).toBeNull();
    const after = await target(id);
    expect(acceptsSecret(after, final.webhook_secret)).toBe(true);
    expect(acceptsSecret(after, rotated.webhook_secret)).toBe(false);
  });

  it('serialises concurrent rotations on the row lock: the second keeps the first one as its previous secret', async () => {
    const id = await create('refunds');
    const [one, two] = await Promise.all([secrets.rotate(workspace, 'refunds'), secrets.rotate(workspace, 'refunds')]);
    const { rows } = await pool.query<HookRow>(`SELECT * FROM ${table} WHERE id = $1`, [id]);
    const current = sealer.open(rows[0].webhook_secret_sealed);
    const previous = sealer.open(rows[0].previous_webhook_secret_sealed ?? '');
    expect([one.webhook_secret, two.webhook_secret]).toContain(current);
    expect([one.webhook_secret, two.webhook_secret]).toContain(previous);
    expect(current).not.toBe(previous);
    expect(acceptsSecret(await target(id), current)).toBe(true);
  });

  it('writes every owner again when the registry lost them, and leaves a refused rotation unpublished', async () => {
    const id = await create('payouts');
    await registry.remove('workflow_deployment', id);
    expect(await keeper.republish(id)).toBe(true);
    expect(await registry.get('workflow_deployment', id)).not.toBeNull();
    await expect(secrets.rotate(workspace, 'missing')).rejects.toThrow('Hook not found: missing');
  });
});
