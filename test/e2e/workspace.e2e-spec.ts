import { cliJson, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';

/**
 * `GET /v1/private/workspace`: a key's holder learns its own workspace (the id the public
 * collections take in their path) and its key's id, and nothing of another workspace.
 */
describe('GET /v1/private/workspace', () => {
  const apps: AppProcess[] = [];
  let gateway: string;

  const show = (key?: string) =>
    fetch(`${gateway}/v1/private/workspace`, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });

  beforeAll(async () => {
    const env = { LOG_LEVEL: 'warn' };
    apps.push(spawnApp('catalog', await freePort(), env), spawnApp('gateway', await freePort(), env));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[1].baseUrl;
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  it("answers each key its own workspace and key id, in the workspace's language", async () => {
    const first = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', 'e2e own workspace']);
    const second = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      'e2e other',
      '--language',
      'es',
    ]);
    const [firstKey] = await cliJson<Array<{ id: string }>>(['key', 'list', first.workspace_id]);
    const [secondKey] = await cliJson<Array<{ id: string }>>(['key', 'list', second.workspace_id]);

    const answer = await show(first.api_key);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      workspace: {
        id: first.workspace_id,
        name: 'e2e own workspace',
        plan: expect.any(String),
        language: 'en',
        created_at: expect.any(String),
      },
      api_key: { id: firstKey.id },
    });
    expect(await (await show(second.api_key)).json()).toMatchObject({
      workspace: { id: second.workspace_id, name: 'e2e other', language: 'es' },
      api_key: { id: secondKey.id },
    });
  });

  it('refuses a missing or unknown key with the catalog 401', async () => {
    for (const key of [undefined, 'wsk_not-a-real-key']) {
      const answer = await show(key);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ error_code: expect.any(String), message: expect.any(String) });
    }
  });
});
