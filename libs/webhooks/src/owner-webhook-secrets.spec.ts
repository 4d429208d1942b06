import { randomBytes, randomUUID } from 'node:crypto';
import { OwnerWebhookSecrets, type WebhookSecretColumns } from './owner-webhook-secrets';
import { digestWebhookSecret, SecretSealer } from './secrets';
import type { WebhookTargetSource } from './target-keeper';

interface Owner extends WebhookSecretColumns {
  name: string;
}

/** Owners in memory, named by (workspace, name); the keeper records what it was asked to write. */
function ownerSecrets() {
  const sealer = new SecretSealer(randomBytes(32));
  const owners = new Map<string, Owner>();
  const calls: Array<[string, ...unknown[]]> = [];
  const logged: unknown[] = [];
  const find = (workspaceId: string, name: string) => {
    const owner = [...owners.values()].find((candidate) => candidate.workspaceId === workspaceId && candidate.name === name);
    if (!owner) throw new Error(`no owner ${name}`);
    return owner;
  };
  let inTransaction = false;
  const secrets = new OwnerWebhookSecrets<Owner, { name: string; webhook_secret: string; previous_secret_expires_at: string | null }>({
    kind: 'workflow_deployment',
    sealer,
    overlapSeconds: 3600,
    keeper: {
      register: (source: WebhookTargetSource) => void calls.push(['register', source.kind]),
      publish: async (kind, ids) => (calls.push(['publish', kind, ids]), ids.length),
      remove: async (kind, id) => void calls.push(['remove', kind, id]),
    },
    store: {
      transaction: async (work) => {
        inTransaction = true;
        try {
          return await work();
        } finally {
          inTransaction = false;
        }
      },
      get: async (workspaceId, name, options) => {
        if (options) calls.push(['get', options, inTransaction ? 'in transaction' : 'outside']);
        return { ...find(workspaceId, name) };
      },
      saveSecrets: async (owner) => {
        calls.push(['save', inTransaction ? 'in transaction' : 'outside']);
        owners.set(owner.id, owner);
      },
      findByIds: async (ids) => ids.flatMap((id) => owners.get(id) ?? []),
      idsPage: async (skip, take) => [...owners.keys()].sort().slice(skip, skip + take),
    },
    view: (owner, secret) => ({ name: owner.name, ...secret }),
    logIdField: 'owner_id',
    logger: { log: (entry) => logged.push(entry) },
  });
  const add = (name: string): Owner => {
    const sealed = secrets.newSecrets();
    const owner: Owner = {
      id: randomUUID(),
      workspaceId: 'w',
      name,
      webhookSecretSealed: sealed.current,
      previousWebhookSecretSealed: sealed.previous,
      previousSecretExpiresAt: sealed.previousExpiresAt,
    };
    owners.set(owner.id, owner);
    return owner;
  };
  const stored = (id: string): Owner => {
    const owner = owners.get(id);
    if (!owner) throw new Error(`no owner ${id}`);
    return owner;
  };
  return { sealer, secrets, add, stored, calls, logged };
}

describe('OwnerWebhookSecrets', () => {
  it('registers itself as the source of its kind when its module starts', () => {
    const { secrets, calls } = ownerSecrets();
    secrets.onModuleInit();
    expect(calls).toEqual([['register', 'workflow_deployment']]);
  });

  it('shows the current secret opened, with no overlap before any rotation', async () => {
    const { secrets, add, sealer } = ownerSecrets();
    const owner = add('digest');
    expect(await secrets.view('w', 'digest')).toEqual({
      name: 'digest',
      webhook_secret: sealer.open(owner.webhookSecretSealed),
      previous_secret_expires_at: null,
    });
  });

  it('rotates with the default overlap: both secrets in force and in the target, the row written, the target published and logged', async () => {
    const { secrets, add, stored, calls, logged } = ownerSecrets();
    const { id } = add('digest');
    const before = await secrets.view('w', 'digest');
    const askedAt = Date.now();
    const rotated = await secrets.rotate('w', 'digest');
    expect(rotated.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.webhook_secret).not.toBe(before.webhook_secret);
    expect(Date.parse(rotated.previous_secret_expires_at ?? '')).toBeGreaterThanOrEqual(askedAt + 3_600_000);
    expect(await secrets.view('w', 'digest')).toEqual(rotated);
    const owner = stored(id);
    expect(calls).toEqual([
      ['get', { lock: true }, 'in transaction'],
      ['save', 'in transaction'],
      ['publish', 'workflow_deployment', [owner.id]],
    ]);
    expect(logged).toEqual([{ msg: 'webhook secret rotated', owner_id: owner.id, overlap_seconds: 3600 }]);

    const [current] = await secrets.targets([owner.id]);
    expect(current).toEqual({
      kind: 'workflow_deployment',
      id: owner.id,
      workspace_id: 'w',
      secrets: [
        { digest: digestWebhookSecret(rotated.webhook_secret), sealed: owner.webhookSecretSealed, expires_at: null },
        { digest: digestWebhookSecret(before.webhook_secret), sealed: expect.any(String), expires_at: rotated.previous_secret_expires_at },
      ],
    });
    for (const secret of [before.webhook_secret, rotated.webhook_secret]) expect(secrets.accepts(owner, secret)).toBe(true);
  });

  it('rotates without overlap when asked: only the new secret is in force', async () => {
    const { secrets, add, stored } = ownerSecrets();
    const { id } = add('digest');
    const before = await secrets.view('w', 'digest');
    const rotated = await secrets.rotate('w', 'digest', 0);
    const owner = stored(id);
    expect(rotated.previous_secret_expires_at).toBeNull();
    expect(owner.previousWebhookSecretSealed).toBeNull();
    expect(secrets.accepts(owner, before.webhook_secret)).toBe(false);
    expect(secrets.accepts(owner, rotated.webhook_secret)).toBe(true);
    expect((await secrets.targets([owner.id]))[0].secrets).toHaveLength(1);
  });

  it('publishes nothing when the store refuses the rotation (an unknown owner)', async () => {
    const { secrets, calls } = ownerSecrets();
    await expect(secrets.rotate('w', 'nope')).rejects.toThrow('no owner nope');
    expect(calls).toEqual([['get', { lock: true }, 'in transaction']]);
  });

  it('pages ids and leaves unknown ids out of the targets; unpublish removes the entry', async () => {
    const { secrets, add, calls } = ownerSecrets();
    const [a, b] = [add('a'), add('b')];
    expect(await secrets.idsPage(0, 10)).toEqual([a.id, b.id].sort());
    expect((await secrets.targets([a.id, randomUUID()])).map((target) => target.id)).toEqual([a.id]);
    await secrets.unpublish(a.id);
    expect(calls).toEqual([['remove', 'workflow_deployment', a.id]]);
  });
});
