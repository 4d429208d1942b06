import { APP_NAMES, DOMAIN_SERVICES, type AppName } from '@waggle/contracts';
import { ERROR_CATALOG, errorCodes } from '@waggle/errors';
import { expectEventually, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';

type Readiness = { status: string; services: Record<string, { status: string }> };

const ENTRY_FIELDS = [
  'category',
  'client_action',
  'client_action_key',
  'code',
  'field',
  'field_aliases',
  'message',
  'message_key',
  'status',
];

describe('the seven apps, started as processes', () => {
  const apps = new Map<AppName, AppProcess>();
  let gateway: string;

  const start = async (app: AppName, port: number) => {
    const process = spawnApp(app, port, { LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '3000' });
    apps.set(app, process);
    await waitUntilLive(process);
    return process;
  };

  const running = (app: AppName): AppProcess => {
    const process = apps.get(app);
    if (!process) throw new Error(`${app} is not running`);
    return process;
  };

  const readiness = async (): Promise<Readiness> => (await fetch(`${gateway}/health/ready`)).json() as Promise<Readiness>;

  beforeAll(async () => {
    await Promise.all(APP_NAMES.map(async (app) => start(app, await freePort())));
    gateway = running('gateway').baseUrl;
    await expectEventually(
      async () => {
        const { services } = await readiness();
        expect(Object.values(services).every((service) => service.status === 'up')).toBe(true);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  afterAll(async () => {
    const codes = await Promise.all([...apps.values()].map((app) => app.stop('SIGTERM')));
    // Every app shut down gracefully on SIGTERM.
    expect(codes).toEqual(codes.map(() => 0));
  });

  it('gateway readiness is 200 and names every domain service as up', async () => {
    const response = await fetch(`${gateway}/health/ready`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Readiness & { details: Record<string, { status: string }> };
    expect(body.status).toBe('ok');
    expect(body.details).toMatchObject({ nats: { status: 'up' }, redis: { status: 'up' } });
    expect(Object.keys(body.services).sort()).toEqual([...DOMAIN_SERVICES].sort());
    for (const service of DOMAIN_SERVICES) expect(body.services[service]).toMatchObject({ status: 'up' });
  });

  it('each service checks its own dependencies', async () => {
    const catalog = await fetch(`${running('catalog').baseUrl}/health/ready`);
    expect(catalog.status).toBe(200);
    expect(await catalog.json()).toMatchObject({ status: 'ok', details: { postgres: { status: 'up' }, nats: { status: 'up' } } });
    const dispatcher = await fetch(`${running('callback-dispatcher').baseUrl}/health/ready`);
    expect(await dispatcher.json()).toMatchObject({
      details: { postgres: { status: 'up' }, nats: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('shows a stopped service as down, and up again once it is back', async () => {
    const catalog = running('catalog');
    await expect(catalog.stop('SIGTERM')).resolves.toBe(0);
    // Nothing is cached: the next readiness check pings the services and hears no one.
    expect((await readiness()).services.catalog).toMatchObject({ status: 'down' });
    // The others are unaffected, and the gateway itself stays ready.
    const during = await fetch(`${gateway}/health/ready`);
    expect(during.status).toBe(200);
    expect(((await during.json()) as Readiness).services.invocation.status).toBe('up');

    await start('catalog', catalog.port);
    await expectEventually(async () => expect((await readiness()).services.catalog.status).toBe('up'), { timeoutMs: 15_000 });
  });

  it('GET /v1/error_codes lists every catalog code with all nine fields', async () => {
    const response = await fetch(`${gateway}/v1/error_codes`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      locale: string;
      default_field: string;
      compatibility_aliases: string[];
      codes: Array<Record<string, unknown>>;
    };
    expect(body.locale).toBe('en');
    expect(body.default_field).toBe('error_code');
    expect(body.compatibility_aliases).toContain('code');
    expect(body.codes.map((entry) => entry.code)).toEqual(errorCodes());
    for (const entry of body.codes) {
      expect(Object.keys(entry).sort()).toEqual(ENTRY_FIELDS);
      const code = entry.code as keyof typeof ERROR_CATALOG;
      expect(entry).toMatchObject({
        status: ERROR_CATALOG[code].status,
        field: 'error_code',
        message_key: `errors.codes.${code}`,
        client_action_key: `errors.client_actions.${code}`,
        message: ERROR_CATALOG[code].text.en.message,
      });
    }
    const deprecated = body.codes.find((entry) => entry.code === 'model_deprecated');
    expect(deprecated?.message).toContain('%{model}');
    expect(body.codes.find((entry) => entry.code === 'api_rate_limit_exceeded')).toMatchObject({ status: 429, field_aliases: ['code'] });
  });

  it('answers ?locale=es in Spanish and falls back to English for an unknown locale', async () => {
    const spanish = (await (await fetch(`${gateway}/v1/error_codes?locale=es`)).json()) as {
      locale: string;
      codes: Array<{ code: string; message: string; client_action: string }>;
    };
    expect(spanish.locale).toBe('es');
    expect(spanish.codes).toHaveLength(errorCodes().length);
    for (const entry of spanish.codes) {
      const text = ERROR_CATALOG[entry.code as keyof typeof ERROR_CATALOG].text.es;
      expect(entry).toMatchObject({ message: text.message, client_action: text.client_action });
    }
    const fallback = (await (await fetch(`${gateway}/v1/error_codes?locale=zz`)).json()) as {
      locale: string;
      codes: Array<{ message: string }>;
    };
    expect(fallback.locale).toBe('en');
    expect(fallback.codes[0].message).toBe(ERROR_CATALOG.model_deprecated.text.en.message);
  });

  it('answers unknown routes with 404 and malformed JSON with 400, in the JSON error shape', async () => {
    const unknown = await fetch(`${gateway}/v1/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/application\/json/);
    const notFound = (await unknown.json()) as Record<string, string>;
    expect(notFound).toEqual({ error: notFound.message, message: expect.any(String), error_code: 'not_found', code: 'not_found' });

    const malformed = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"deployment":',
    });
    expect(malformed.status).toBe(400);
    const invalid = (await malformed.json()) as Record<string, string>;
    expect(invalid).toEqual({
      error: invalid.message,
      message: expect.any(String),
      error_code: 'invalid_request',
      code: 'invalid_request',
    });
  });

  it('refuses to start an app with a bad variable, naming it and not echoing its value', async () => {
    const badPort = spawnApp('catalog', await freePort(), { PORT: '99999' });
    await expect(badPort.exited).resolves.toBe(78);
    expect(badPort.output()).toMatch(/PORT/);

    const badDatabase = spawnApp('catalog', await freePort(), { DATABASE_URL: 'mysql://admin:s3cret@db/waggle' });
    await expect(badDatabase.exited).resolves.toBe(78);
    expect(badDatabase.output()).toMatch(/DATABASE_URL/);
    expect(badDatabase.output()).not.toContain('s3cret');
  });
});
