import {
  AGENT_PROMPT_CACHE_TTLS,
  AGENT_REASONING_EFFORTS,
  AGENT_TOOL_CHOICES,
  type AgentRecord,
  type AgentWebhookSecretView,
} from '@waggle/contracts';
import { cliJson, freePort, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { acceptsSecret, WebhookRegistry } from '@waggle/webhooks';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { TEST_REDIS_URL } from '../setup/test-env';

interface Workspace {
  id: string;
  key: string;
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

const RECORD_KEYS = [
  'id',
  'name',
  'description',
  'llm_model',
  'model_type',
  'instruction_prompt',
  'temperature',
  'max_token',
  'max_thinking_token',
  'provider_prompt_cache_ttl',
  'reasoning_effort',
  'tool_choice',
  'max_tool_calls',
  'fallbacks',
  'response_format',
  'mcp',
  'credentials',
  'publish',
  'status',
  'created_at',
  'updated_at',
].sort();

const AGENT_NOT_FOUND = {
  error: 'Agent not found',
  message: 'Agent not found',
  error_code: 'resource_not_found',
  code: 'resource_not_found',
};
const WORKSPACE_NOT_FOUND = { error: 'Workspace not found', message: 'Workspace not found', error_code: 'not_found', code: 'not_found' };
const INVALID = 'One or more request parameters are invalid.';
const MISSING = 'A required field is missing.';
const REQUIRED = { name: 'Support', llm_model: 'gpt-6-luna', model_type: 'llm' };

/**
 * Agent management through the gateway over HTTP, as a client calls it: the spec's
 * "Agents collection and item" table with the decisions' record, statuses and bodies, per
 * workspace, and each agent's webhook secret through the private routes and the CLI.
 */
describe('agents: /v1/public/workspaces/{workspace_id}/agents', () => {
  const apps: AppProcess[] = [];
  let gateway: string;
  let a: Workspace;
  let b: Workspace;
  let spanish: Workspace;
  let redis: Redis;

  async function call<T = Record<string, unknown>>(
    who: Workspace | string | null,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer<T>> {
    const key = who === null ? undefined : typeof who === 'string' ? who : who.key;
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: {
        ...(key !== undefined && { authorization: `Bearer ${key}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T, headers: response.headers };
  }
  const agents = (workspace: Workspace) => `/v1/public/workspaces/${workspace.id}/agents`;
  const item = (workspace: Workspace, id: string) => `${agents(workspace)}/${id}`;
  const createIn = (workspace: Workspace, agent: Record<string, unknown>) =>
    call<{ message: string; agent: AgentRecord }>(workspace, 'POST', agents(workspace), { agent });
  async function created(workspace: Workspace, agent: Record<string, unknown> = {}): Promise<AgentRecord> {
    const answer = await createIn(workspace, { ...REQUIRED, ...agent });
    expect(answer).toMatchObject({ status: 200, body: { message: 'Agent created successfully' } });
    return answer.body.agent;
  }
  const listed = async (workspace: Workspace) => (await call<{ agents: AgentRecord[] }>(workspace, 'GET', agents(workspace))).body.agents;

  beforeAll(async () => {
    for (const app of ['catalog', 'agent', 'gateway'] as const) apps.push(spawnApp(app, await freePort(), { LOG_LEVEL: 'warn' }));
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = apps[apps.length - 1].baseUrl;
    const workspace = async (name: string, extra: string[] = []) => {
      const made = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', name, ...extra]);
      return { id: made.workspace_id, key: made.api_key };
    };
    [a, b, spanish] = [
      await workspace('e2e agents A'),
      await workspace('e2e agents B'),
      await workspace('e2e agents ES', ['--language', 'es']),
    ];
    redis = new Redis(TEST_REDIS_URL);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    redis?.disconnect();
  });

  describe('create (POST)', () => {
    it('answers 200 {message, agent} with exactly the record fields, unset ones null, status active', async () => {
      const answer = await createIn(a, REQUIRED);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['agent', 'message']);
      expect(answer.body.message).toBe('Agent created successfully');
      const agent = answer.body.agent;
      expect(Object.keys(agent).sort()).toEqual(RECORD_KEYS);
      expect(agent).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: 'Support',
        description: null,
        llm_model: 'gpt-6-luna',
        model_type: 'llm',
        instruction_prompt: null,
        temperature: null,
        max_token: null,
        max_thinking_token: null,
        provider_prompt_cache_ttl: null,
        reasoning_effort: null,
        tool_choice: null,
        max_tool_calls: null,
        fallbacks: [],
        response_format: null,
        mcp: null,
        credentials: 'hosted',
        publish: null,
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updated_at: agent.created_at,
      });
      // Public routes are metered.
      expect(answer.headers.get('x-ratelimit-limit')).toEqual(expect.any(String));
    });

    it('accepts every field at once, the update-only ones included', async () => {
      const fields = {
        ...REQUIRED,
        name: 'Complete',
        description: 'Answers billing questions',
        instruction_prompt: 'You are a careful billing assistant.',
        temperature: 0.3,
        max_token: 2048,
        max_thinking_token: 4096,
        provider_prompt_cache_ttl: '1h',
        reasoning_effort: 'minimal',
        tool_choice: 'required',
        max_tool_calls: 7,
        fallbacks: ['claude-haiku-5-5'],
        response_format: { type: 'json_schema', name: 'invoice', schema: { type: 'object', required: ['total'] }, strict: true },
        // Naming servers needs one registered: test/e2e/mcp-tools.e2e-spec.ts.
        mcp: null,
        credentials: 'workspace',
        publish: { mcp: true, tool_name: 'billing_desk', description: 'Answers billing questions over MCP' },
      };
      const agent = await created(a, fields);
      expect(agent).toEqual({
        ...fields,
        id: expect.any(String),
        status: 'active',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it('takes max_token as an integer or a string of digits (coerced), and refuses anything else with 422 validation_error', async () => {
      expect((await created(a, { max_token: 1000 })).max_token).toBe(1000);
      expect((await created(a, { max_token: '2048' })).max_token).toBe(2048);
      for (const bad of ['0190f5a1-b2c3-7d4e-8f90-a1b2c3d4e5f6', 'many', '12.5', 12.5, true, [], {}, 0, -5]) {
        const answer = await createIn(a, { ...REQUIRED, max_token: bad });
        expect({ bad, status: answer.status, body: answer.body }).toEqual({
          bad,
          status: 422,
          body: {
            error: INVALID,
            message: INVALID,
            error_code: 'validation_error',
            code: 'validation_error',
            details: [{ field: 'agent.max_token', messages: expect.any(Array) }],
          },
        });
      }
    });

    it("accepts every value of the spec's enums, and refuses any other with the field named", async () => {
      const enums = {
        provider_prompt_cache_ttl: AGENT_PROMPT_CACHE_TTLS,
        reasoning_effort: AGENT_REASONING_EFFORTS,
        tool_choice: AGENT_TOOL_CHOICES,
      };
      for (const [field, values] of Object.entries(enums)) {
        for (const value of values)
          expect((await created(a, { name: `enum ${field} ${value}`, [field]: value }))[field as keyof AgentRecord]).toBe(value);
        const refused = await createIn(a, { ...REQUIRED, [field]: 'extreme' });
        expect(refused).toMatchObject({
          status: 422,
          body: { error_code: 'validation_error', code: 'validation_error', details: [{ field: `agent.${field}` }] },
        });
      }
      for (const [field, bad] of [
        ['max_thinking_token', 1.5],
        ['max_tool_calls', '3'],
        ['temperature', 'hot'],
        ['name', ''],
        ['description', 42],
      ] as const) {
        const refused = await createIn(a, { ...REQUIRED, [field]: bad });
        expect(refused).toMatchObject({ status: 422, body: { error_code: 'validation_error', details: [{ field: `agent.${field}` }] } });
      }
    });

    it('requires the agent wrapper and its three fields (missing_required_field), and refuses unknown fields and bodies that are not JSON', async () => {
      expect(await call(a, 'POST', agents(a), REQUIRED)).toMatchObject({
        status: 422,
        body: {
          error: MISSING,
          message: MISSING,
          error_code: 'missing_required_field',
          code: 'missing_required_field',
          details: expect.arrayContaining([{ field: 'agent', messages: expect.any(Array) }]),
        },
      });
      const withoutName = await createIn(a, { llm_model: 'gpt-6-luna', model_type: 'llm' });
      expect(withoutName).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field', details: [{ field: 'agent.name' }] },
      });
      const withoutModel = await createIn(a, { name: 'x' });
      expect(withoutModel.body).toMatchObject({
        error_code: 'missing_required_field',
        details: [{ field: 'agent.llm_model' }, { field: 'agent.model_type' }],
      });
      expect(await createIn(a, { ...REQUIRED, status: 'active' })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'agent.status' }] },
      });
      expect(await call(a, 'POST', agents(a), { agent: REQUIRED, extra: 1 })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'extra' }] },
      });
      expect(await call(a, 'POST', agents(a), { agent: [REQUIRED] })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error' },
      });
      expect(await call(a, 'POST', agents(a), '{"agent":')).toMatchObject({
        status: 400,
        body: { error_code: 'invalid_request', code: 'invalid_request' },
      });
    });

    it('refuses an invalid LLM model with 422 and an error naming the model: unknown, not an llm, deprecated, or a model_type that differs', async () => {
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ llm_model: 'gpt-nonexistent-9' }, 'validation_error', /gpt-nonexistent-9/],
        [{ llm_model: 'gpt-image-2.6-sunburst', model_type: 'image_generation' }, 'validation_error', /gpt-image-2\.6-sunburst.*llm/],
        [{ llm_model: 'gpt-image-2.6-sunburst', model_type: 'llm' }, 'validation_error', /gpt-image-2\.6-sunburst/],
        [{ llm_model: 'text-embedding-3-small', model_type: 'embedding' }, 'validation_error', /text-embedding-3-small/],
        [{ llm_model: 'gpt-4o' }, 'model_deprecated', /^The model gpt-4o is no longer available/],
        [{ model_type: 'image_generation' }, 'validation_error', /gpt-6-luna has model_type llm, not image_generation/],
        [{ model_type: 'chat' }, 'validation_error', /gpt-6-luna/],
      ];
      const before = (await listed(a)).length;
      for (const [fields, code, named] of cases) {
        const answer = await createIn(a, { ...REQUIRED, ...fields });
        expect({ fields, status: answer.status, body: answer.body }).toEqual({
          fields,
          status: 422,
          body: expect.objectContaining({
            error: expect.stringMatching(named),
            message: expect.stringMatching(named),
            error_code: code,
            code,
          }),
        });
      }
      expect(await listed(a)).toHaveLength(before);
    });

    it("answers in the workspace's language", async () => {
      const deprecated = await createIn(spanish, { ...REQUIRED, llm_model: 'gpt-4o' });
      expect(deprecated).toMatchObject({
        status: 422,
        body: { error: 'El modelo gpt-4o ya no está disponible. Elija otro modelo.', error_code: 'model_deprecated' },
      });
      const invalid = await createIn(spanish, { ...REQUIRED, tool_choice: 'x' });
      expect(invalid.body).toMatchObject({ error_code: 'validation_error', error: expect.not.stringMatching(INVALID) });
    });
  });

  describe('list and read (GET)', () => {
    it("lists the workspace's own agents as {agents: [...]}, oldest first, and nothing of another workspace", async () => {
      const first = await created(b, { name: 'B first' });
      const second = await created(b, { name: 'B second' });
      const answer = await call<{ agents: AgentRecord[] }>(b, 'GET', agents(b));
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(['agents']);
      expect(answer.body.agents).toEqual([first, second]);
      const ofA = await listed(a);
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofA.some((agent) => agent.id === first.id || agent.id === second.id)).toBe(false);
      for (const agent of ofA) expect(Object.keys(agent).sort()).toEqual(RECORD_KEYS);
    });

    it('reads one agent as {agent}', async () => {
      const agent = await created(a, { name: 'Readable', description: 'd' });
      expect(await call(a, 'GET', item(a, agent.id))).toMatchObject({ status: 200, body: { agent } });
      expect(Object.keys((await call(a, 'GET', item(a, agent.id))).body)).toEqual(['agent']);
    });

    it('answers an unknown id, or one that is not a UUID, 422 Agent not found', async () => {
      for (const id of [randomUUID(), 'not-a-uuid', '12345']) {
        expect(await call(a, 'GET', item(a, id))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      }
      expect((await call(a, 'GET', item(a, randomUUID()))).body).toEqual(AGENT_NOT_FOUND);
    });
  });

  describe('update (PATCH)', () => {
    it('changes the named fields only, answers {message, agent}, and null unsets an optional field', async () => {
      const agent = await created(a, { name: 'Before', description: 'old', temperature: 1.2, tool_choice: 'none' });
      const answer = await call<{ message: string; agent: AgentRecord }>(a, 'PATCH', item(a, agent.id), {
        agent: {
          name: 'After',
          description: null,
          max_token: 300,
          max_thinking_token: 100,
          provider_prompt_cache_ttl: 'disabled',
          reasoning_effort: 'max',
          max_tool_calls: 0,
          fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash'],
        },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.message).toBe('Agent updated successfully');
      expect(answer.body.agent).toEqual({
        ...agent,
        name: 'After',
        description: null,
        max_token: 300,
        max_thinking_token: 100,
        provider_prompt_cache_ttl: 'disabled',
        reasoning_effort: 'max',
        max_tool_calls: 0,
        fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash'],
        updated_at: expect.any(String),
      });
      expect(Date.parse(answer.body.agent.updated_at)).toBeGreaterThan(Date.parse(agent.updated_at));
      expect((await call(a, 'GET', item(a, agent.id))).body).toEqual({ agent: answer.body.agent });
    });

    it("takes update's max_token as an integer only, checks a changed model, and requires the wrapper", async () => {
      const agent = await created(a, { name: 'Strict' });
      expect(await call(a, 'PATCH', item(a, agent.id), { agent: { max_token: '300' } })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'agent.max_token' }] },
      });
      expect(await call(a, 'PATCH', item(a, agent.id), { agent: { name: null } })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'agent.name' }] },
      });
      expect(await call(a, 'PATCH', item(a, agent.id), { agent: { llm_model: 'gpt-image-2.6-sunburst' } })).toMatchObject({
        status: 422,
        body: { error: expect.stringContaining('gpt-image-2.6-sunburst'), error_code: 'validation_error' },
      });
      expect(await call(a, 'PATCH', item(a, agent.id), { agent: { model_type: 'image_generation' } })).toMatchObject({
        status: 422,
        body: { error: expect.stringContaining('gpt-6-luna'), error_code: 'validation_error' },
      });
      expect(await call(a, 'PATCH', item(a, agent.id), { name: 'no wrapper' })).toMatchObject({
        status: 422,
        body: { error_code: 'missing_required_field' },
      });
      // A fallback must see images as the agent's model does (decisions D41).
      const blind = 'Invalid fallback: codestral-latest cannot see images, which this run needs';
      expect(await call(a, 'PATCH', item(a, agent.id), { agent: { fallbacks: ['codestral-latest'] } })).toMatchObject({
        status: 422,
        body: { error: blind, error_code: 'validation_error', details: [{ field: 'agent.fallbacks[0]', messages: [blind] }] },
      });
      expect(
        await call(a, 'PATCH', item(a, agent.id), { agent: { response_format: { type: 'json_schema', schema: { type: 'nope' } } } }),
      ).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'agent.response_format.schema' }] },
      });
      expect((await call(a, 'GET', item(a, agent.id))).body).toEqual({ agent });
      const moved = await call<{ agent: AgentRecord }>(a, 'PATCH', item(a, agent.id), { agent: { llm_model: 'gpt-6.1-sol' } });
      expect(moved).toMatchObject({ status: 200, body: { agent: { llm_model: 'gpt-6.1-sol', model_type: 'llm' } } });
    });

    it('answers an unknown agent 422 Agent not found', async () => {
      expect(await call(a, 'PATCH', item(a, randomUUID()), { agent: { name: 'x' } })).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
    });
  });

  describe('delete (DELETE)', () => {
    it('answers {message} and the agent is never read, listed, updated or deleted again', async () => {
      const agent = await created(a, { name: 'Doomed' });
      const answer = await call(a, 'DELETE', item(a, agent.id));
      expect(answer).toMatchObject({ status: 200, body: { message: 'Agent deleted successfully' } });
      expect(Object.keys(answer.body)).toEqual(['message']);
      expect(await call(a, 'GET', item(a, agent.id))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      expect(await call(a, 'PATCH', item(a, agent.id), { agent: { name: 'Revived' } })).toMatchObject({
        status: 422,
        body: AGENT_NOT_FOUND,
      });
      expect(await call(a, 'DELETE', item(a, agent.id))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      expect((await listed(a)).some((listedAgent) => listedAgent.id === agent.id)).toBe(false);
      expect(await call(a, 'GET', `/v1/private/agents/${agent.id}/webhook_secret`)).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      // Its trigger target is gone too: the gateway would answer its webhook "not found".
      expect(await new WebhookRegistry(redis).get('agent', agent.id)).toBeNull();
    });

    it('answers an unknown agent 422 Agent not found', async () => {
      expect(await call(a, 'DELETE', item(a, randomUUID()))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      expect(await call(a, 'DELETE', item(a, 'nope'))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
    });
  });

  describe('workspaces', () => {
    it("answers another workspace's agent 422 Agent not found on every item route, and leaves it untouched", async () => {
      const theirs = await created(b, { name: 'B private' });
      expect(await call(a, 'GET', item(a, theirs.id))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      expect(await call(a, 'PATCH', item(a, theirs.id), { agent: { name: 'Taken' } })).toMatchObject({
        status: 422,
        body: AGENT_NOT_FOUND,
      });
      expect(await call(a, 'DELETE', item(a, theirs.id))).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      expect(await call(a, 'GET', `/v1/private/agents/${theirs.id}/webhook_secret`)).toMatchObject({ status: 422, body: AGENT_NOT_FOUND });
      expect(await call(a, 'POST', `/v1/private/agents/${theirs.id}/webhook_secret/rotate`, {})).toMatchObject({
        status: 422,
        body: AGENT_NOT_FOUND,
      });
      expect(await call(b, 'GET', item(b, theirs.id))).toMatchObject({ status: 200, body: { agent: theirs } });
    });

    it('answers a workspace in the path that is not the key\'s 404 "Workspace not found" on every route', async () => {
      const mine = await created(a, { name: 'Mine' });
      for (const other of [b.id, randomUUID(), 'not-a-workspace']) {
        const base = `/v1/public/workspaces/${other}/agents`;
        const requests: Array<[string, string, unknown]> = [
          ['GET', base, undefined],
          ['POST', base, { agent: REQUIRED }],
          ['GET', `${base}/${mine.id}`, undefined],
          ['PATCH', `${base}/${mine.id}`, { agent: { name: 'x' } }],
          ['DELETE', `${base}/${mine.id}`, undefined],
        ];
        for (const [method, path, body] of requests) {
          const answer = await call(a, method, path, body);
          expect({ method, path, status: answer.status, body: answer.body }).toEqual({
            method,
            path,
            status: 404,
            body: WORKSPACE_NOT_FOUND,
          });
        }
      }
      expect(await call(a, 'GET', item(a, mine.id))).toMatchObject({ status: 200, body: { agent: mine } });
    });

    it('answers 401 without a valid key on every route', async () => {
      const mine = await created(a, { name: 'Keyed' });
      for (const who of [null, 'wgl_not_a_real_key']) {
        for (const [method, path] of [
          ['GET', agents(a)],
          ['POST', agents(a)],
          ['GET', item(a, mine.id)],
          ['PATCH', item(a, mine.id)],
          ['DELETE', item(a, mine.id)],
          ['GET', `/v1/private/agents/${mine.id}/webhook_secret`],
        ]) {
          const answer = await call(who, method, path, method === 'POST' || method === 'PATCH' ? { agent: REQUIRED } : undefined);
          expect({ method, path, status: answer.status, code: answer.body.error_code }).toEqual({
            method,
            path,
            status: 401,
            code: who === null ? 'unauthorized' : 'invalid_api_key',
          });
        }
      }
    });
  });

  describe('webhook secrets', () => {
    it('gives each agent its own whsec_ secret, shown by the private route and the CLI alike', async () => {
      const [first, second] = [await created(a, { name: 'Hooked 1' }), await created(a, { name: 'Hooked 2' })];
      const shown = await call<{ webhook_secret: AgentWebhookSecretView }>(a, 'GET', `/v1/private/agents/${first.id}/webhook_secret`);
      expect(shown).toMatchObject({
        status: 200,
        body: {
          webhook_secret: {
            agent_id: first.id,
            webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
            previous_secret_expires_at: null,
          },
        },
      });
      expect(Buffer.from(shown.body.webhook_secret.webhook_secret.slice(6), 'base64')).toHaveLength(32);
      expect(await cliJson<AgentWebhookSecretView>(['agent', 'webhook-secret', 'show', a.id, first.id])).toEqual(shown.body.webhook_secret);
      const other = await call<{ webhook_secret: AgentWebhookSecretView }>(a, 'GET', `/v1/private/agents/${second.id}/webhook_secret`);
      expect(other.body.webhook_secret.webhook_secret).not.toBe(shown.body.webhook_secret.webhook_secret);
      // The private routes are not metered.
      expect(shown.headers.get('x-ratelimit-limit')).toBeNull();
    });

    it('rotates by the private route (both secrets accepted for the overlap) and by the CLI (--overlap 0: only the new one)', async () => {
      const agent = await created(a, { name: 'Rotating' });
      const registry = new WebhookRegistry(redis);
      const original = (await call<{ webhook_secret: AgentWebhookSecretView }>(a, 'GET', `/v1/private/agents/${agent.id}/webhook_secret`))
        .body.webhook_secret.webhook_secret;
      const rotated = await call<{ webhook_secret: AgentWebhookSecretView }>(
        a,
        'POST',
        `/v1/private/agents/${agent.id}/webhook_secret/rotate`,
        { overlap_seconds: 3600 },
      );
      expect(rotated.status).toBe(200);
      const view = rotated.body.webhook_secret;
      expect(view).toEqual({
        agent_id: agent.id,
        webhook_secret: expect.stringMatching(/^whsec_/),
        previous_secret_expires_at: expect.any(String),
      });
      expect(view.webhook_secret).not.toBe(original);
      expect(Date.parse(view.previous_secret_expires_at ?? '')).toBeGreaterThan(Date.now() + 3500_000);
      const during = await registry.get('agent', agent.id);
      expect(during?.workspace_id).toBe(a.id);
      for (const secret of [original, view.webhook_secret]) expect(during && acceptsSecret(during, secret)).toBe(true);

      expect(await call(a, 'POST', `/v1/private/agents/${agent.id}/webhook_secret/rotate`, { overlap_seconds: -1 })).toMatchObject({
        status: 422,
        body: { error_code: 'validation_error', details: [{ field: 'overlap_seconds' }] },
      });
      const again = await cliJson<AgentWebhookSecretView>(['agent', 'webhook-secret', 'rotate', a.id, agent.id, '--overlap', '0', '--yes']);
      expect(again).toEqual({ agent_id: agent.id, webhook_secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: null });
      const after = await registry.get('agent', agent.id);
      expect(after?.secrets).toHaveLength(1);
      expect(after && acceptsSecret(after, again.webhook_secret)).toBe(true);
      for (const secret of [original, view.webhook_secret]) expect(after && acceptsSecret(after, secret)).toBe(false);
      expect(
        (await call<{ webhook_secret: AgentWebhookSecretView }>(a, 'GET', `/v1/private/agents/${agent.id}/webhook_secret`)).body
          .webhook_secret,
      ).toEqual(again);
      // Rotating changes nothing of the public record.
      expect((await call(a, 'GET', item(a, agent.id))).body).toEqual({ agent });
    });
  });
});
