import { InvocationPatterns, type ShownWebhookSecret, type WebhookOwnerKind } from '@waggle/contracts';
import { racedWrites, startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import { acceptsSecret, SecretSealer, WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';
import { PromptResolutionCache } from '../src/prompts/prompt-resolution.cache';
import { WorkflowResolutionCache } from '../src/workflows/deployments/workflow-resolution.cache';

/** What one apply answered, whichever kind: the deployment's id, its secret, and what changed. */
interface Applied {
  id: string;
  webhookSecret: string;
  created: boolean;
  variants: Array<{ name: string; version: number; changed: boolean }>;
}

/** One kind of deployment, as the test drives it over NATS (the gateway's and the CLI's way in). */
interface Kind {
  name: 'prompt' | 'workflow';
  table: string;
  registryKind: WebhookOwnerKind;
  /** Applies one deployment with one variant, `default`, whose text is `text`. */
  apply(workspaceId: string, deployment: string, text: string): Promise<Applied>;
  /** Applies one file of these deployments, in this order, each with one variant, `default`, whose text is `text`. */
  applyFile(workspaceId: string, deployments: readonly string[], text: string): Promise<Applied[]>;
  rotate(workspaceId: string, deployment: string, overlapSeconds: number): Promise<ShownWebhookSecret>;
  /** The cache of the kind's resolutions on this replica. */
  cache(): { changed(workspaceId: string): void };
  /** The version a run of `default` uses now, as this replica's cache answers it. */
  resolvedVersion(workspaceId: string, deployment: string): Promise<number>;
}

/** The row's webhook secret columns, opened. */
interface SecretColumns {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/**
 * Prompt and workflow deployments are applied and rotated by one DeploymentApplier, so they keep
 * their webhook secrets and forget their cached resolutions by one rule. Each case runs for both
 * kinds with the same expectations, through each kind's service over NATS, so a kind whose apply
 * drifts again (a secret column not written or clobbered, a cache forgotten on another
 * condition) fails here:
 *
 * - a new deployment gets its own secret, all three columns written (no previous one yet), and
 *   its target published before apply answers; an apply never touches an existing deployment's
 *   secrets, so a rotation's previous secret stays in force through its overlap whatever is applied;
 * - the workspace's resolutions are forgotten exactly when an apply made a version (a new or a
 *   changed variant) and on a rotation, never by an apply that changed nothing.
 */
describe('DeploymentApplier: one secret rule and one cache rule for prompt and workflow deployments', () => {
  let service: ServiceUnderTest;
  let database: Client;
  let redis: Redis;
  let registry: WebhookRegistry;
  let sealer: SecretSealer;

  const kinds: Kind[] = [
    {
      name: 'prompt',
      table: 'invocation.prompt_deployments',
      registryKind: 'prompt_deployment',
      async apply(workspaceId, deployment, text) {
        const [applied] = await this.applyFile(workspaceId, [deployment], text);
        return applied;
      },
      async applyFile(workspaceId, deployments, text) {
        const applied = await service.send(InvocationPatterns.applyPrompts, {
          workspace_id: workspaceId,
          prompts: deployments.map((deployment) => ({
            deployment,
            variants: [{ name: 'default', model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: text }] }],
          })),
        });
        return applied.map((one) => ({
          id: one.prompt_endpoint_id,
          webhookSecret: one.webhook_secret,
          created: one.created,
          variants: one.variants,
        }));
      },
      rotate: (workspaceId, deployment, overlapSeconds) =>
        service.send(InvocationPatterns.rotateWebhookSecret, { workspace_id: workspaceId, deployment, overlap_seconds: overlapSeconds }),
      cache: () => service.app.get(PromptResolutionCache),
      resolvedVersion: async (workspaceId, deployment) =>
        (await service.app.get(PromptResolutionCache).resolve(workspaceId, deployment, 'default')).version.version,
    },
    {
      name: 'workflow',
      table: 'invocation.workflow_deployments',
      registryKind: 'workflow_deployment',
      async apply(workspaceId, deployment, text) {
        const [applied] = await this.applyFile(workspaceId, [deployment], text);
        return applied;
      },
      async applyFile(workspaceId, deployments, text) {
        const applied = await service.send(InvocationPatterns.applyWorkflows, {
          workspace_id: workspaceId,
          workflows: deployments.map((deployment) => ({
            deployment,
            variants: [{ name: 'default', inputs: {}, output: '{{ note.output }}', steps: [{ id: 'note', type: 'template', text }] }],
          })),
        });
        return applied.map((one) => ({
          id: one.workflow_deployment_id,
          webhookSecret: one.webhook_secret,
          created: one.created,
          variants: one.variants,
        }));
      },
      rotate: (workspaceId, deployment, overlapSeconds) =>
        service.send(InvocationPatterns.rotateWorkflowWebhookSecret, {
          workspace_id: workspaceId,
          deployment,
          overlap_seconds: overlapSeconds,
        }),
      cache: () => service.app.get(WorkflowResolutionCache),
      resolvedVersion: async (workspaceId, deployment) =>
        (await service.app.get(WorkflowResolutionCache).resolve(workspaceId, deployment, 'default')).version,
    },
  ];

  async function secretColumns(kind: Kind, id: string): Promise<SecretColumns> {
    const { rows } = await database.query<{
      webhook_secret_sealed: string;
      previous_webhook_secret_sealed: string | null;
      previous_secret_expires_at: Date | null;
    }>(`SELECT webhook_secret_sealed, previous_webhook_secret_sealed, previous_secret_expires_at FROM ${kind.table} WHERE id = $1`, [id]);
    const [row] = rows;
    return {
      current: sealer.open(row.webhook_secret_sealed),
      previous: row.previous_webhook_secret_sealed === null ? null : sealer.open(row.previous_webhook_secret_sealed),
      previousExpiresAt: row.previous_secret_expires_at,
    };
  }

  async function target(kind: Kind, id: string): Promise<WebhookTarget> {
    const found = await registry.get(kind.registryKind, id);
    if (!found) throw new Error(`no webhook target for ${kind.registryKind} ${id}`);
    return found;
  }

  /** The workspaces whose resolutions `work` made the kind's cache forget, in order. */
  async function forgotten(kind: Kind, work: () => Promise<unknown>): Promise<string[]> {
    const changed = jest.spyOn(kind.cache(), 'changed');
    try {
      await work();
      return changed.mock.calls.map(([workspaceId]) => workspaceId);
    } finally {
      changed.mockRestore();
    }
  }

  /** What each kind did, step by step, in a form both kinds must share. */
  const transcripts = new Map<Kind['name'], unknown[]>();

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    sealer = service.app.get(SecretSealer);
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
    redis = new Redis(process.env.REDIS_URL as string);
    registry = new WebhookRegistry(redis);
  });

  afterAll(async () => {
    await service?.stop();
    await database?.end();
    await redis?.quit();
  });

  describe.each(kinds.map((kind) => [kind.name, kind] as const))('%s deployments', (_name, kind) => {
    const workspaceId = randomUUID();
    const deployment = `applier-${kind.name}`;
    const transcript: unknown[] = [];
    let first: Applied;

    beforeAll(() => transcripts.set(kind.name, transcript));

    it('creates a deployment with its own secret in all three columns (none previous yet), published, and forgets the resolutions', async () => {
      let applied!: Applied;
      const calls = await forgotten(kind, async () => (applied = await kind.apply(workspaceId, deployment, 'First notes')));
      first = applied;
      expect(applied).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        created: true,
        variants: [expect.objectContaining({ name: 'default', version: 1, changed: true })],
      });
      // New variants: the workspace's resolutions are forgotten (none of them could have been cached).
      expect(calls).toEqual([workspaceId]);
      const columns = await secretColumns(kind, applied.id);
      expect(columns).toEqual({ current: applied.webhookSecret, previous: null, previousExpiresAt: null });
      const published = await target(kind, applied.id);
      expect(published.secrets).toEqual([expect.objectContaining({ expires_at: null })]);
      expect(acceptsSecret(published, applied.webhookSecret)).toBe(true);
      expect(await kind.resolvedVersion(workspaceId, deployment)).toBe(1);
      transcript.push({
        step: 'create',
        created: applied.created,
        changed: applied.variants.map((v) => v.changed),
        calls: calls.length,
        previous: columns.previous,
      });
    });

    it('changes nothing and forgets nothing when the same file is applied again', async () => {
      let applied!: Applied;
      const calls = await forgotten(kind, async () => (applied = await kind.apply(workspaceId, deployment, 'First notes')));
      expect(applied).toEqual({ ...first, created: false, variants: [expect.objectContaining({ version: 1, changed: false })] });
      expect(calls).toEqual([]);
      expect(await secretColumns(kind, first.id)).toEqual({ current: first.webhookSecret, previous: null, previousExpiresAt: null });
      transcript.push({ step: 'same', created: applied.created, changed: applied.variants.map((v) => v.changed), calls: calls.length });
    });

    it('makes a version of a changed variant, keeps the secret, and forgets the resolutions so this replica runs it at once', async () => {
      expect(await kind.resolvedVersion(workspaceId, deployment)).toBe(1);
      let applied!: Applied;
      const calls = await forgotten(kind, async () => (applied = await kind.apply(workspaceId, deployment, 'Second notes')));
      expect(applied.variants).toEqual([expect.objectContaining({ version: 2, changed: true })]);
      expect(applied.webhookSecret).toBe(first.webhookSecret);
      expect(calls).toEqual([workspaceId]);
      expect(await kind.resolvedVersion(workspaceId, deployment)).toBe(2);
      transcript.push({ step: 'changed', created: applied.created, changed: applied.variants.map((v) => v.changed), calls: calls.length });
    });

    it('forgets the resolutions on a rotation, and keeps the previous secret in force through applies during the overlap', async () => {
      const askedAt = Date.now();
      let rotated!: ShownWebhookSecret;
      const rotationCalls = await forgotten(kind, async () => (rotated = await kind.rotate(workspaceId, deployment, 3600)));
      expect(rotationCalls).toEqual([workspaceId]);
      expect(rotated.webhook_secret).not.toBe(first.webhookSecret);
      const during = await secretColumns(kind, first.id);
      expect(during).toEqual({ current: rotated.webhook_secret, previous: first.webhookSecret, previousExpiresAt: expect.any(Date) });
      expect(during.previousExpiresAt?.getTime()).toBeGreaterThanOrEqual(askedAt + 3_600_000 - 1_000);

      // An unchanged apply answers the new secret and leaves the rotation's columns as they are.
      let unchanged!: Applied;
      const unchangedCalls = await forgotten(kind, async () => (unchanged = await kind.apply(workspaceId, deployment, 'Second notes')));
      expect(unchanged.webhookSecret).toBe(rotated.webhook_secret);
      expect(unchangedCalls).toEqual([]);
      expect(await secretColumns(kind, first.id)).toEqual(during);

      // A changed one too: both secrets stay in force, in the row and in the published target.
      let changed!: Applied;
      const changedCalls = await forgotten(kind, async () => (changed = await kind.apply(workspaceId, deployment, 'Third notes')));
      expect(changed.variants).toEqual([expect.objectContaining({ version: 3, changed: true })]);
      expect(changed.webhookSecret).toBe(rotated.webhook_secret);
      expect(changedCalls).toEqual([workspaceId]);
      expect(await secretColumns(kind, first.id)).toEqual(during);
      const published = await target(kind, first.id);
      expect(published.secrets.map((secret) => secret.expires_at)).toEqual([null, during.previousExpiresAt?.toISOString()]);
      expect(acceptsSecret(published, rotated.webhook_secret)).toBe(true);
      expect(acceptsSecret(published, first.webhookSecret)).toBe(true);
      transcript.push({
        step: 'rotation',
        calls: [rotationCalls.length, unchangedCalls.length, changedCalls.length],
        previousKept: during.previous === first.webhookSecret,
      });
    });
  });

  /**
   * Concurrent applies are serialized per deployment name: two first applies of one new
   * deployment must not both insert it (a unique violation, answered as a 500), and two files
   * naming the same deployments in opposite orders must not lock them in opposite orders (a
   * deadlock). Each case makes the race happen every time rather than by chance (racedWrites:
   * the table the applies write to is held until every apply waits on a lock).
   */
  describe.each(kinds.map((kind) => [kind.name, kind] as const))('%s deployments applied concurrently', (_name, kind) => {
    /** Fewer than the service's 10 pooled connections: each waiting apply holds one. */
    const CONCURRENT = 8;
    const versionsTable = kind.table.replace(/_deployments$/, '_versions');

    async function deploymentRows(workspaceId: string): Promise<Array<{ id: string; name: string }>> {
      const { rows } = await database.query<{ id: string; name: string }>(
        `SELECT id, name FROM ${kind.table} WHERE workspace_id = $1 ORDER BY name`,
        [workspaceId],
      );
      return rows;
    }

    it('answers every one of concurrent first applies of one new deployment: one deployment, one version, one created', async () => {
      const workspaceId = randomUUID();
      const answers = await racedWrites(
        kind.table,
        Array.from({ length: CONCURRENT }, () => () => kind.apply(workspaceId, 'applied-at-once', 'Same notes')),
      );
      const rows = await deploymentRows(workspaceId);
      expect(rows).toEqual([{ id: expect.any(String), name: 'applied-at-once' }]);
      expect(new Set(answers.map((answer) => answer.id))).toEqual(new Set([rows[0].id]));
      expect(new Set(answers.map((answer) => answer.webhookSecret)).size).toBe(1);
      expect(answers.filter((answer) => answer.created)).toHaveLength(1);
      // The first made version 1; every other found it unchanged.
      const variants = answers.flatMap((answer) => answer.variants);
      expect(variants.filter((variant) => variant.changed)).toHaveLength(1);
      expect(variants.map((variant) => variant.version)).toEqual(Array(CONCURRENT).fill(1));
    });

    it('answers every one of concurrent applies naming the same deployments in opposite orders, new and then existing', async () => {
      const workspaceId = randomUUID();
      const names = ['crossed-a', 'crossed-b', 'crossed-c'];
      const orderOf = (i: number) => (i % 2 === 0 ? names : [...names].reverse());
      // New deployments, each file in its own order.
      const created = await racedWrites(
        kind.table,
        Array.from({ length: CONCURRENT }, (_, i) => () => kind.applyFile(workspaceId, orderOf(i), 'Created at once')),
      );
      const rows = await deploymentRows(workspaceId);
      expect(rows.map((row) => row.name)).toEqual(names);
      expect(created.flat().filter((answer) => answer.created)).toHaveLength(names.length);
      // Existing deployments, every file changing each of them: a version each, none lost.
      const changed = await racedWrites(
        versionsTable,
        Array.from({ length: CONCURRENT }, (_, i) => () => kind.applyFile(workspaceId, orderOf(i), `Changed by file ${i}`)),
      );
      for (const row of rows) {
        const versions = changed.flat().flatMap((answer) => (answer.id === row.id ? answer.variants : []));
        expect(versions.every((variant) => variant.changed)).toBe(true);
        expect(versions.map((variant) => variant.version).sort((a, b) => a - b)).toEqual(
          Array.from({ length: CONCURRENT }, (_, i) => i + 2),
        );
      }
    });
  });

  it('observed the same behaviour for both kinds', () => {
    expect(transcripts.get('prompt')).toHaveLength(4);
    expect(transcripts.get('workflow')).toEqual(transcripts.get('prompt'));
  });
});
