import { createHash } from 'node:crypto';
import { SecretSealer, type WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import { SigningKeys } from './signing-keys';

const sealer = new SecretSealer(createHash('sha256').update('signing-keys spec').digest());
const entry = (secret: string, expiresAt: string | null = null) => ({
  digest: 'unused',
  sealed: sealer.seal(secret),
  expires_at: expiresAt,
});

/** A registry double that counts reads; the real one is exercised by the integration spec. */
function registryWith(targets: Map<string, WebhookTarget>) {
  const reads: string[] = [];
  const registry = {
    get: async (kind: string, id: string) => {
      reads.push(`${kind}:${id}`);
      return targets.get(id) ?? null;
    },
  } as unknown as WebhookRegistry;
  return { registry, reads };
}

describe('SigningKeys', () => {
  const now = new Date('2026-03-01T12:00:00Z');

  it('answers the secrets in force, current first, and skips expired ones', async () => {
    const target: WebhookTarget = {
      kind: 'agent',
      id: 'a1',
      workspace_id: 'w',
      secrets: [entry('whsec_new'), entry('whsec_old', '2026-03-01T13:00:00Z'), entry('whsec_gone', '2026-03-01T11:00:00Z')],
    };
    const { registry } = registryWith(new Map([['a1', target]]));
    expect(await new SigningKeys(registry, sealer).secretsFor('agent', 'a1', now)).toEqual(['whsec_new', 'whsec_old']);
  });

  it('shares one registry read among overlapping sends, and reads again for the next send (a rotation counts at once)', async () => {
    const targets = new Map<string, WebhookTarget>([['a1', { kind: 'agent', id: 'a1', workspace_id: 'w', secrets: [entry('whsec_x')] }]]);
    const { registry, reads } = registryWith(targets);
    const keys = new SigningKeys(registry, sealer);
    await Promise.all([keys.secretsFor('agent', 'a1', now), keys.secretsFor('agent', 'a1', now)]);
    expect(reads).toHaveLength(1);
    targets.set('a1', { kind: 'agent', id: 'a1', workspace_id: 'w', secrets: [entry('whsec_rotated')] });
    expect(await keys.secretsFor('agent', 'a1', now)).toEqual(['whsec_rotated']);
    expect(reads).toHaveLength(2);
  });

  it('does not remember a missing owner', async () => {
    const targets = new Map<string, WebhookTarget>();
    const { registry, reads } = registryWith(targets);
    const keys = new SigningKeys(registry, sealer);
    expect(await keys.secretsFor('agent', 'a2', now)).toBeNull();
    targets.set('a2', { kind: 'agent', id: 'a2', workspace_id: 'w', secrets: [entry('whsec_y')] });
    expect(await keys.secretsFor('agent', 'a2', now)).toEqual(['whsec_y']);
    expect(reads).toHaveLength(2);
  });
});
