import type { AgentWebhookSecretView, WebhookSecretView } from '@waggle/contracts';
import fc from 'fast-check';
import {
  anyJson,
  bodyArbitrary,
  DeepJson,
  encodeComponent,
  errorOf,
  expectAnswerShape,
  expectCatalogShape,
  multipartArbitrary,
  nastyString,
  onOpenAiSurface,
  queryArbitrary,
  toJsonText,
} from './support/inputs';
import {
  firstRunBody,
  promptModel,
  ROUTES,
  SHARED_IDEMPOTENCY_KEY,
  takesBody,
  type Context,
  type RouteCase,
  type Workspace,
} from './support/routes';
import { generatedRunSettings } from './support/seeds';
import { useGeneratedStack } from './support/stack';

/**
 * Every route of the gateway, sent what a new user's mistakes and an attacker's probes
 * would send: arbitrary path parameters, bodies (valid ones with a field swapped for any
 * JSON, NUL characters, nesting thousands of levels deep, not JSON at all), query strings
 * and headers. Whatever comes in, the answer is never a 5xx, every error is in the catalog's
 * shape (on the OpenAI-compatible surface, /openai/v1/*, in OpenAI's, and every answer there has
 * an `x-request-id`; at the MCP server, /v1/mcp, a JSON-RPC error), and workspace A's key never
 * reads anything of workspace B's.
 *
 * GENERATED_INPUT_RUNS sets the cases per route (default 300); fast-check prints the seed
 * and the smallest failing case when a property fails; the seed is fixed for CI (support/seeds.ts),
 * GENERATED_INPUT_SEED replays another, and `npm run test:explore` draws fresh ones.
 * Services add their routes to ROUTES.
 */

const RUNS_PER_ROUTE = Number(process.env.GENERATED_INPUT_RUNS ?? 300);
const SEED = generatedRunSettings('generated input').seed;

const MiB = 1024 * 1024;
/** decisions, payload sizes: bodies around NATS's 1 MiB (the MCP server's limit too) and around the gateway's 5 MiB limit. */
const BODY_SIZES_MIB = [0.9, 1.0, 1.1, 4.9, 5.0, 5.1];
/** The gateway's MAX_JSON_BODY_BYTES default. */
const BODY_LIMIT_BYTES = 5 * MiB;

/**
 * `valid` as JSON text of exactly `bytes` bytes: the string at `path` (created when absent)
 * grows to fill it, partly with two-byte UTF-8 characters so that bytes and characters differ.
 */
function bodyOfSize(valid: Record<string, unknown>, path: string, bytes: number): string {
  const body = structuredClone(valid);
  const keys = path.split('.');
  let target = body as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
  const leaf = keys[keys.length - 1];
  target[leaf] = '';
  const room = bytes - Buffer.byteLength(JSON.stringify(body));
  const twoByte = Math.min(10_000, Math.floor(room / 4));
  target[leaf] = `${'é'.repeat(twoByte)}${'a'.repeat(room - 2 * twoByte)}`;
  return JSON.stringify(body);
}

/** A header value fetch can send (visible ASCII, tabs and spaces). */
const headerValue = (): fc.Arbitrary<string> =>
  fc.oneof(
    nastyString.filter((value) => /^[\t\x20-\x7e]*$/.test(value)),
    fc.constantFrom('x'.repeat(255), 'x'.repeat(256), 'ключ', '0', '-1', '1.5', '99999999999'),
  );

/** A run-lifecycle header: absent, a valid value, one used before (another workspace's too), or arbitrary. */
function lifecycleHeaderArbitrary(route: RouteCase): fc.Arbitrary<Record<string, string>> {
  if (!route.lifecycleHeader) return fc.constant({});
  const name = route.lifecycleHeader;
  const valid =
    name === 'idempotency-key'
      ? fc.constantFrom(SHARED_IDEMPOTENCY_KEY, 'generated-retry', 'generated-retry-2')
      : fc.nat({ max: 20 }).map(String);
  return fc
    .option(fc.oneof(valid, headerValue()), { nil: undefined })
    .map((value): Record<string, string> => (value === undefined ? {} : { [name]: value.replace(/[^\t\x20-\x7e]/g, '?') }));
}

describe('generated input across the public and private routes', () => {
  const stack = useGeneratedStack('generated input');
  const { paramArbitrary, credentialHeaders } = stack;
  let gateway: string;
  let context: typeof stack.context;
  let secretsOfB: string[];
  beforeAll(() => {
    ({ gateway, context, secretsOfB } = stack);
  });

  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: no 5xx, errors in their surface's shape, nothing of another workspace",
    async (_name, route) => {
      const valid = route.validBody?.(context) as Record<string, unknown> | undefined;
      let successes = 0;
      const credential = fc.oneof(
        { weight: 6, arbitrary: fc.constant('a') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('none', 'Bearer ', 'Basic Zm9vOmJhcg==', 'Bearer wg_live_not_a_key', `Bearer ${'k'.repeat(600)}`),
        },
        { weight: 1, arbitrary: nastyString.filter((value) => /^[\t\x20-\x7e]*$/.test(value)) },
      );
      const contentType = fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      );
      const language = fc.constantFrom(undefined, 'es', 'fr', '*', 'x'.repeat(200));
      const lifecycle = lifecycleHeaderArbitrary(route);

      await fc.assert(
        fc.asyncProperty(
          paramArbitrary(route),
          bodyArbitrary(valid),
          route.query ? queryArbitrary() : fc.constant(''),
          credential,
          contentType,
          language,
          lifecycle,
          async (params, body, query, who, type, acceptLanguage, lifecycleHeaders) => {
            const path = route.path.replace(/\{(\d)\}/g, (_match, index: string) => encodeComponent(params[Number(index)]));
            const url = `${gateway}${path}${query ? `?${query}` : ''}`;
            const headers: Record<string, string> = {
              ...credentialHeaders(route, who),
              ...(type && { 'content-type': type }),
              ...(acceptLanguage && { 'accept-language': acceptLanguage }),
              ...lifecycleHeaders,
            };
            stack.count();
            const response = await fetch(url, { method: route.method, headers, body: takesBody(route) ? body : undefined });
            const text = await response.text();
            if (response.status < 300) successes += 1;
            const what = `${route.method} ${path}`;
            if (response.status >= 500) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
            expectAnswerShape(path, response.status, text, (name) => response.headers.get(name), what);
            if (who === 'a' && response.status < 300) {
              const leaked = secretsOfB.find((secret) => text.includes(secret));
              if (leaked)
                throw new Error(`${what} with workspace A's credentials answered something of workspace B's (${leaked.slice(0, 12)}…)`);
            }
          },
        ),
        { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: false },
      );
      // The generators also send valid requests, so the cases reach past validation into the
      // services; that all of one case's parts come out valid at once is likely, not certain, in
      // a few hundred runs, so one such request is sent here too and must succeed.
      const canSucceed = !route.path.includes('{') || route.validParams !== undefined;
      if (canSucceed && successes === 0) {
        const params = route.validParams?.(context)[0] ?? [];
        const path = route.path.replace(/\{(\d)\}/g, (_match, index: string) => encodeURIComponent(params[Number(index)]));
        const response = await fetch(`${gateway}${path}`, {
          method: route.method,
          headers: { ...credentialHeaders(route, 'a'), 'content-type': 'application/json' },
          body: takesBody(route) ? JSON.stringify(valid ?? {}) : undefined,
        });
        const text = await response.text();
        if (response.status >= 300) throw new Error(`a valid ${route.method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
      }
    },
  );

  it('POST /v1/public/workspaces/{0}/assets (multipart): no 5xx, errors in the catalog shape, nothing of another workspace', async () => {
    const credential = fc.oneof(
      { weight: 6, arbitrary: fc.constant('a') },
      { weight: 1, arbitrary: fc.constantFrom('none', 'b', 'Bearer wg_live_not_a_key') },
    );
    const route: RouteCase = {
      method: 'POST',
      path: '/v1/public/workspaces/{0}/assets',
      credentials: 'key',
      validParams: ({ a, b }) => [[a.id], [b.id]],
    };
    let successes = 0;
    await fc.assert(
      fc.asyncProperty(paramArbitrary(route), multipartArbitrary(), credential, async ([workspace], { contentType, body }, who) => {
        const path = `/v1/public/workspaces/${encodeComponent(workspace)}/assets`;
        stack.count();
        const response = await fetch(`${gateway}${path}`, {
          method: 'POST',
          headers: { ...credentialHeaders(route, who), 'content-type': contentType },
          body,
        });
        const text = await response.text();
        if (response.status < 300) successes += 1;
        const what = `POST ${path} (${contentType})`;
        if (response.status >= 500) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
        if (response.status >= 400) expectCatalogShape(response.status, text, what);
        if (who === 'a' && response.status < 300) {
          const leaked = secretsOfB.find((secret) => text.includes(secret));
          if (leaked) throw new Error(`${what} with workspace A's key answered something of workspace B's (${leaked.slice(0, 12)}…)`);
        }
      }),
      { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: false },
    );
    if (successes === 0) {
      const form = new FormData();
      form.append('file', new Blob(['generated']), 'generated.txt');
      const response = await fetch(`${gateway}/v1/public/workspaces/${context.a.id}/assets`, {
        method: 'POST',
        headers: credentialHeaders(route, 'a'),
        body: form,
      });
      if (response.status !== 200) throw new Error(`a valid upload answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    }
  });

  /** Sends `body` as workspace A's JSON: never a 5xx, and every refusal in the catalog shape. */
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${context.a.key}`, 'content-type': 'application/json' },
      body: toJsonText(body),
    });
    const text = await response.text();
    const what = `${method} ${path}`;
    if (response.status >= 500) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
    if (response.status >= 400) expectCatalogShape(response.status, text, what);
  };

  it('fallbacks and response_format of any shape on a prompt variant, an agent and a workflow step: no 5xx, catalog errors', async () => {
    const modelId = fc.oneof(nastyString, fc.constantFrom('fake-generated-chat', 'fake-generated-json', 'no-such-model', 'gpt-5.4-mini'));
    const fallbacks = fc.oneof(anyJson, fc.array(modelId, { maxLength: 5 }));
    const pattern = fc.oneof(nastyString, fc.constantFrom('^(a+)+$', '(', '[', '\\p{L}+', '(?<n>a)\\k<n>'));
    const schema = fc.oneof(
      anyJson,
      fc.record(
        {
          type: fc.oneof(fc.constantFrom('object', 'string', 'integer', 'bogus'), anyJson),
          properties: fc.oneof(anyJson, fc.dictionary(nastyString, fc.record({ type: fc.constantFrom('string', 'number'), pattern }))),
          required: fc.oneof(anyJson, fc.array(nastyString, { maxLength: 3 })),
          pattern,
          $ref: fc.constantFrom('#/nope', 'http://127.0.0.1:1/schema', '#'),
          $id: fc.constantFrom('https://example.com/a', 'generated'),
        },
        { requiredKeys: [] },
      ),
      fc.constant({ type: 'object', description: 'x'.repeat(70 * 1024) }),
    );
    const responseFormat = fc.oneof(
      anyJson,
      fc.record(
        {
          type: fc.oneof(fc.constant('json_schema'), nastyString),
          name: fc.oneof(fc.constantFrom('place', 'a-b_c'), nastyString),
          schema,
          strict: fc.oneof(fc.boolean(), anyJson),
        },
        { requiredKeys: ['type'] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.option(fallbacks, { nil: undefined }), fc.option(responseFormat, { nil: undefined }), async (chosen, format) => {
        const fields = { ...(chosen !== undefined && { fallbacks: chosen }), ...(format !== undefined && { response_format: format }) };
        const message = { role: 'user', content: 'Say hi' };
        await send('POST', '/v1/private/prompts/apply', {
          prompts: [
            {
              deployment: 'generated-fallbacks',
              variants: [{ name: 'main', model: 'fake-generated-chat', messages: [message], ...fields }],
            },
          ],
        });
        await send('PATCH', `/v1/public/workspaces/${context.a.id}/agents/${context.a.agent.id}`, { agent: fields });
        await send('POST', '/v1/private/workflows/apply', {
          workflows: [
            {
              deployment: 'generated-fallbacks',
              variants: [
                {
                  name: 'default',
                  output: '{{ ask.output }}',
                  steps: [{ id: 'ask', type: 'prompt', model: 'fake-generated-chat', messages: [message], ...fields }],
                },
              ],
            },
          ],
        });
      }),
      { numRuns: Math.max(20, Math.round(RUNS_PER_ROUTE / 3)), seed: SEED, endOnFailure: false },
    );
    // The agent stays runnable for the rest of the tier: its fields back to none.
    await send('PATCH', `/v1/public/workspaces/${context.a.id}/agents/${context.a.agent.id}`, {
      agent: { fallbacks: null, response_format: null },
    });
  });

  it("an agent's mcp and a workflow mcp_tool step of any shape: no 5xx, catalog errors (the spec's decisions, MCP)", async () => {
    const serverId = fc.oneof(nastyString, fc.constantFrom('tools', 'nowhere', 'a'.repeat(25), 'Upper', ''));
    const tools = fc.oneof(anyJson, fc.constant('*'), fc.array(fc.oneof(nastyString, fc.constant('x'.repeat(129))), { maxLength: 4 }));
    const mcp = fc.oneof(
      anyJson,
      fc.array(fc.oneof(anyJson, fc.record({ server: serverId, tools }, { requiredKeys: [] })), { maxLength: 22 }),
    );
    const step = fc.record(
      {
        server: fc.oneof(serverId, anyJson),
        tool: fc.oneof(nastyString, anyJson),
        arguments: fc.oneof(anyJson, fc.dictionary(nastyString, anyJson)),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(mcp, step, async (selection, fields) => {
        await send('PATCH', `/v1/public/workspaces/${context.a.id}/agents/${context.a.agent.id}`, { agent: { mcp: selection } });
        await send('POST', '/v1/private/workflows/apply', {
          workflows: [
            {
              deployment: 'generated-mcp',
              variants: [{ name: 'default', output: '{{ call.output }}', steps: [{ id: 'call', type: 'mcp_tool', ...fields }] }],
            },
          ],
        });
      }),
      { numRuns: Math.max(20, Math.round(RUNS_PER_ROUTE / 3)), seed: SEED, endOnFailure: false },
    );
    // The agent stays runnable for the rest of the tier: no MCP servers.
    await send('PATCH', `/v1/public/workspaces/${context.a.id}/agents/${context.a.agent.id}`, { agent: { mcp: null } });
  });

  it("answers the issue's two 500s as catalog errors: a NUL in a field, and JSON nested 5,000 levels", async () => {
    const post = (body: string) =>
      fetch(`${gateway}/v1/prompt/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${context.a.key}`, 'content-type': 'application/json' },
        body,
      });
    const nul = await post('{"deployment":"a\\u0000b","variant":"default"}');
    expect(nul.status).toBe(422);
    expect(await nul.json()).toEqual({
      error: 'One or more request parameters are invalid.',
      message: 'One or more request parameters are invalid.',
      error_code: 'validation_error',
      code: 'validation_error',
      details: [{ field: 'deployment', messages: ['deployment must not contain the NUL character (\\u0000)'] }],
    });
    for (const body of [
      DeepJson.text(5_000, false),
      toJsonText({ deployment: 'x', variant: 'default', inputs: { deep: new DeepJson(5_000, false) } }),
    ]) {
      const deep = await post(body);
      expect(deep.status).toBe(400);
      expect(await deep.json()).toMatchObject({
        error_code: 'invalid_request',
        code: 'invalid_request',
        message: 'Request input is nested more than 64 levels deep',
      });
    }
    const inPath = await fetch(`${gateway}/v1/private/prompts/a%00b/webhook_secret`, {
      headers: { authorization: `Bearer ${context.a.key}` },
    });
    expect(inPath.status).toBe(422);
    expect(await inPath.json()).toMatchObject({ error_code: 'validation_error', details: [{ field: 'deployment' }] });
    const inQuery = await fetch(`${gateway}/v1/private/requests?user=a%00b`, { headers: { authorization: `Bearer ${context.a.key}` } });
    expect(inQuery.status).toBe(422);
    expect(await inQuery.json()).toMatchObject({ error_code: 'validation_error', details: [{ field: 'user' }] });
  });

  it("keeps each workspace's Idempotency-Keys, kept events and cancels its own", async () => {
    const asA = { authorization: `Bearer ${context.a.key}` };
    const invokeB = (authorization: string) =>
      fetch(`${gateway}/v1/prompt/invoke`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', 'idempotency-key': SHARED_IDEMPOTENCY_KEY },
        body: JSON.stringify(firstRunBody(context.b.deployment.deployment, 'generated B')),
      });
    // B's very request under the key both used, sent with A's API key: A's own key, which A used for
    // another request (422), never B's answer.
    const crossed = await invokeB(asA.authorization);
    const crossedText = await crossed.text();
    expect(crossed.headers.get('idempotent-replayed')).toBeNull();
    expect(crossed.status).toBe(422);
    expect(JSON.parse(crossedText)).toMatchObject({ error_code: 'idempotency_key_reused' });
    expect(crossedText).not.toContain(context.b.requestId);
    // B's own repeat is B's first answer.
    const own = await invokeB(`Bearer ${context.b.key}`);
    expect(own.headers.get('idempotent-replayed')).toBe('true');
    expect(await own.json()).toMatchObject({ request_id: context.b.requestId });
    // B's kept events and B's run, asked for with A's key: the lookup's 404.
    const notFound = { error: 'Request not found', error_code: 'not_found' };
    const events = await fetch(`${gateway}/v1/public/requests/${context.b.streamRequestId}/events`, { headers: asA });
    expect(events.status).toBe(404);
    expect(await events.json()).toMatchObject(notFound);
    const cancel = await fetch(`${gateway}/v1/public/requests/${context.b.streamRequestId}/cancel`, { method: 'POST', headers: asA });
    expect(cancel.status).toBe(404);
    expect(await cancel.json()).toMatchObject(notFound);
  });

  it("keeps each workspace's models on the OpenAI-compatible surface: another workspace's is 404 model_not_found", async () => {
    const openAiRoutes = ROUTES.filter((route) => onOpenAiSurface(route.path));
    expect(openAiRoutes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /openai/v1/chat/completions',
      'POST /openai/v1/responses',
      'GET /openai/v1/models',
      'GET /openai/v1/models/{0}',
    ]);
    const [list, retrieve] = openAiRoutes.filter((route) => route.method === 'GET');
    const runs = openAiRoutes.filter(takesBody);
    // The generated cases above rename A's agent: its name as it is now.
    const nameOf = async ({ id, key, agent }: Workspace) => {
      const response = await fetch(`${gateway}/v1/public/workspaces/${id}/agents/${agent.id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return ((await response.json()) as { agent: { name: string } }).agent.name;
    };
    const names = { a: await nameOf(context.a), b: await nameOf(context.b) };
    const modelsOf = (workspace: Workspace) => [
      promptModel(workspace),
      `agent/${workspace.agent.id}`,
      `agent/${workspace === context.a ? names.a : names.b}`,
    ];
    for (const [who, own, other] of [
      ['a', context.a, context.b],
      ['b', context.b, context.a],
    ] as const) {
      // The route table's valid requests, as this workspace sends them.
      const asOwn: Context = { ...context, a: own, b: other };
      const send = async (route: RouteCase, model: string) => {
        const path = route.path.replace('{0}', encodeURIComponent(model));
        const body = route.validBody && JSON.stringify({ ...(route.validBody(asOwn) as object), model });
        stack.count();
        const response = await fetch(`${gateway}${path}`, {
          method: route.method,
          headers: { ...credentialHeaders(route, who), 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        const what = `${route.method} ${path} with ${who.toUpperCase()}'s key`;
        expectAnswerShape(path, response.status, text, (name) => response.headers.get(name), what);
        return { what, status: response.status, text };
      };
      for (const route of [retrieve, ...runs]) {
        // Its own model is served, which makes the other's 404 a refusal and not a broken request.
        const served = await send(route, promptModel(own));
        expect({ what: served.what, status: served.status }).toEqual({ what: served.what, status: 200 });
        for (const model of modelsOf(other)) {
          const refused = await send(route, model);
          expect({ what: refused.what, status: refused.status, code: errorOf(route.path, refused.text).code }).toEqual({
            what: refused.what,
            status: 404,
            code: 'model_not_found',
          });
          expect(refused.text).not.toContain(other.id);
        }
      }
      const listed = await send(list, '');
      const ids = (JSON.parse(listed.text) as { data: Array<{ id: string }> }).data.map(({ id }) => id);
      expect(ids).toEqual(expect.arrayContaining(modelsOf(own).slice(0, 2)));
      for (const model of modelsOf(other)) expect(ids).not.toContain(model);
    }
  });

  async function readSecret<T>(path: string): Promise<T> {
    const response = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${context.a.key}` } });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return ((await response.json()) as { webhook_secret: T }).webhook_secret;
  }

  const sizedCases = ROUTES.filter((route) => takesBody(route) && route.validBody).flatMap((route) =>
    BODY_SIZES_MIB.map((mib) => [`${route.method} ${route.path}: a ${mib} MiB body`, route, mib] as const),
  );
  it.each(sizedCases)('%s is served (413 past the limit), never a 5xx', async (_name, route, mib) => {
    // The generated cases above rotate A's webhook secrets (some with no overlap): use the current ones.
    if (route.credentials === 'webhook')
      context.a.deployment.webhook_secret = (
        await readSecret<WebhookSecretView>(`/v1/private/prompts/${context.a.deployment.deployment}/webhook_secret`)
      ).webhook_secret;
    if (route.credentials === 'agent-webhook')
      context.a.agentSecret = (
        await readSecret<AgentWebhookSecretView>(`/v1/private/agents/${context.a.agent.id}/webhook_secret`)
      ).webhook_secret;
    const bytes = Math.round(mib * MiB);
    const body = bodyOfSize(route.validBody?.(context) as Record<string, unknown>, route.sized ?? 'unexpected', bytes);
    expect(Buffer.byteLength(body)).toBe(bytes);
    const params = route.validParams?.(context)[0] ?? [];
    const path = route.path.replace(/\{(\d)\}/g, (_match, index: string) => encodeURIComponent(params[Number(index)]));
    stack.count();
    const response = await fetch(`${gateway}${path}`, {
      method: route.method,
      headers: { ...credentialHeaders(route, 'a'), 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    const what = `${route.method} ${path} with ${bytes} bytes`;
    if (response.status >= 500) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
    expectAnswerShape(path, response.status, text, (name) => response.headers.get(name), what);
    if (bytes > (route.bodyLimitBytes ?? BODY_LIMIT_BYTES)) {
      expect({ what, status: response.status, code: errorOf(path, text).code }).toEqual({ what, status: 413, code: 'validation_error' });
      return;
    }
    if (route.servesLarge && response.status >= 300)
      throw new Error(`${what} should be served, but answered ${response.status}: ${text.slice(0, 300)}`);
  });

  it('kept every app in the process it started with, through the whole tier', () => stack.expectNoRestart());
});
