import { API_KEY_PATTERN, CatalogPatterns, HealthPatterns, type CreatedWorkspace } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { expectEventually, startServiceUnderTest, type ServiceUnderTest, failure } from '@waggle/testing';
import { createHash, randomUUID } from 'node:crypto';
import { ApiKeysRepository } from '../src/api-keys/api-keys.repository';
import { bootstrap } from '../src/bootstrap';

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
/** What the gateway sends for a bearer key: its visible prefix and the SHA-256 of the whole key. */
const resolveRequest = (key: string) => ({ prefix: key.slice(0, 12), key_hash: sha256(key) });

/**
 * The catalog service started in-process by its own bootstrap and called over NATS as the
 * gateway and the CLI call it, without the gateway: workspaces, API keys and how the
 * gateway resolves a key.
 */
describe('catalog service over NATS', () => {
  let service: ServiceUnderTest;
  let created: CreatedWorkspace;

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    created = await service.send(CatalogPatterns.createWorkspace, { name: 'catalog service spec', language: 'es' });
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('answers catalog.health.ping', async () => {
    // Readiness checks are live (1 s each): under load one can miss right after start.
    await expectEventually(async () =>
      expect(await service.send(HealthPatterns.catalog, {})).toEqual({ service: 'catalog', ready: true, uptime_s: expect.any(Number) }),
    );
  });

  it('creates a workspace on the default plan with a first key, shown once', () => {
    expect(created.workspace).toMatchObject({
      id: expect.any(String),
      name: 'catalog service spec',
      plan: 'developer',
      language: 'es',
      limit_overrides: {},
    });
    expect(created.api_key.api_key).toMatch(API_KEY_PATTERN);
    expect(created.api_key).toMatchObject({
      workspace_id: created.workspace.id,
      prefix: created.api_key.api_key.slice(0, 12),
      revoked_at: null,
    });
  });

  it('resolves a key created for the workspace from its prefix and SHA-256, to the workspace, language and limits', async () => {
    const key = await service.send(CatalogPatterns.createApiKey, { workspace_id: created.workspace.id });
    expect(key.api_key).toMatch(API_KEY_PATTERN);
    expect(key.api_key).not.toBe(created.api_key.api_key);
    await expect(service.send(CatalogPatterns.resolveApiKey, resolveRequest(key.api_key))).resolves.toEqual({
      key_id: key.id,
      workspace_id: created.workspace.id,
      language: 'es',
      limits: created.workspace.limits,
      hosted_credits: false,
    });
    // The first key still resolves to the same workspace.
    await expect(service.send(CatalogPatterns.resolveApiKey, resolveRequest(created.api_key.api_key))).resolves.toMatchObject({
      key_id: created.api_key.id,
      workspace_id: created.workspace.id,
    });
    // The catalog stores and lists the prefix, never the key.
    const listed = await service.send(CatalogPatterns.listApiKeys, { workspace_id: created.workspace.id });
    expect(listed.map((summary) => summary.id).sort()).toEqual([created.api_key.id, key.id].sort());
    expect(JSON.stringify(listed)).not.toContain(key.api_key);
  });

  it("writes a key's last use once per resolution window", async () => {
    const key = await service.send(CatalogPatterns.createApiKey, { workspace_id: created.workspace.id });
    const keys = service.app.get(ApiKeysRepository);
    const lastUsed = async () =>
      (await service.send(CatalogPatterns.listApiKeys, { workspace_id: created.workspace.id })).find((summary) => summary.id === key.id)
        ?.last_used_at;
    expect(await lastUsed()).toBeNull();
    const first = new Date('2026-01-01T00:00:00.000Z');
    await keys.touchLastUsed(key.id, first, 60_000);
    expect(await lastUsed()).toBe(first.toISOString());
    // Within the window: left as it was.
    await keys.touchLastUsed(key.id, new Date(first.getTime() + 59_000), 60_000);
    expect(await lastUsed()).toBe(first.toISOString());
    // Past it: written again.
    const later = new Date(first.getTime() + 61_000);
    await keys.touchLastUsed(key.id, later, 60_000);
    expect(await lastUsed()).toBe(later.toISOString());
  });

  it('refuses a wrong hash and an unknown prefix alike, as invalid_api_key', async () => {
    const key = created.api_key.api_key;
    const wrongHash = await failure(service.send(CatalogPatterns.resolveApiKey, { prefix: key.slice(0, 12), key_hash: sha256(`${key}x`) }));
    const unknownPrefix = await failure(service.send(CatalogPatterns.resolveApiKey, resolveRequest(`wgl_${'Z'.repeat(40)}`)));
    for (const refused of [wrongHash, unknownPrefix]) {
      expect(refused).toBeInstanceOf(WaggleException);
      expect(refused).toMatchObject({ code: 'invalid_api_key', status: 401 });
    }
    // Nothing tells the two apart.
    expect(unknownPrefix.toWire()).toEqual(wrongHash.toWire());
  });

  it('refuses a revoked key and keeps the others working', async () => {
    const revokedKey = await service.send(CatalogPatterns.createApiKey, { workspace_id: created.workspace.id });
    const revoked = await service.send(CatalogPatterns.revokeApiKey, { key: revokedKey.prefix });
    expect(revoked).toMatchObject({ id: revokedKey.id, revoked_at: expect.any(String) });
    await expect(service.send(CatalogPatterns.resolveApiKey, resolveRequest(revokedKey.api_key))).rejects.toMatchObject({
      code: 'invalid_api_key',
      status: 401,
    });
    await expect(service.send(CatalogPatterns.resolveApiKey, resolveRequest(created.api_key.api_key))).resolves.toMatchObject({
      workspace_id: created.workspace.id,
    });
    await expect(service.send(CatalogPatterns.revokeApiKey, { key: 'wgl_nosuchkey' })).rejects.toMatchObject({
      code: 'not_found',
      message: 'API key not found',
    });
  });

  it('refuses malformed resolve payloads with the validation envelope, naming the fields', async () => {
    const short = await failure(service.send(CatalogPatterns.resolveApiKey, { prefix: 'wgl_short', key_hash: sha256('x') }));
    expect(short).toMatchObject({
      code: 'validation_error',
      status: 422,
      details: [
        { field: 'prefix', messages: [{ detail: 'validation_min_length', params: { property: 'prefix', min: expect.any(String) } }] },
      ],
    });
    const missing = await failure(service.send(CatalogPatterns.resolveApiKey, { prefix: created.api_key.prefix } as never));
    expect(missing).toMatchObject({
      code: 'missing_required_field',
      details: [
        { field: 'key_hash', messages: [{ detail: 'validation_matches', params: { property: 'key_hash', pattern: '/^[0-9a-f]{64}$/' } }] },
      ],
    });
    const extra = await failure(
      service.send(CatalogPatterns.resolveApiKey, {
        ...resolveRequest(created.api_key.api_key),
        api_key: created.api_key.api_key,
      } as never),
    );
    expect(extra).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'api_key', messages: [{ detail: 'validation_unknown_property', params: { property: 'api_key' } }] }],
    });
  });

  it('gets a workspace until it is deleted; then it, its keys and new keys are gone', async () => {
    const doomed = await service.send(CatalogPatterns.createWorkspace, { name: 'to be deleted' });
    await expect(service.send(CatalogPatterns.getWorkspace, { workspace_id: doomed.workspace.id })).resolves.toEqual(doomed.workspace);
    await expect(service.send(CatalogPatterns.deleteWorkspace, { workspace_id: doomed.workspace.id })).resolves.toMatchObject({
      id: doomed.workspace.id,
    });

    const gone = await failure(service.send(CatalogPatterns.getWorkspace, { workspace_id: doomed.workspace.id }));
    expect(gone).toMatchObject({ code: 'not_found', status: 404, message: 'Workspace not found' });
    await expect(service.send(CatalogPatterns.resolveApiKey, resolveRequest(doomed.api_key.api_key))).rejects.toMatchObject({
      code: 'invalid_api_key',
    });
    await expect(service.send(CatalogPatterns.createApiKey, { workspace_id: doomed.workspace.id })).rejects.toMatchObject({
      code: 'not_found',
      message: 'Workspace not found',
    });
    const listed = await service.send(CatalogPatterns.listWorkspaces, {});
    expect(listed.map((workspace) => workspace.id)).toContain(created.workspace.id);
    expect(listed.map((workspace) => workspace.id)).not.toContain(doomed.workspace.id);
  });

  it('answers not_found for a workspace that never existed, and validation_error for an id that is not a UUID', async () => {
    await expect(service.send(CatalogPatterns.getWorkspace, { workspace_id: randomUUID() })).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
    await expect(service.send(CatalogPatterns.getWorkspace, { workspace_id: 'not-a-uuid' })).rejects.toMatchObject({
      code: 'validation_error',
      details: [{ field: 'workspace_id', messages: [{ detail: 'validation_is_uuid', params: { property: 'workspace_id' } }] }],
    });
  });
});
