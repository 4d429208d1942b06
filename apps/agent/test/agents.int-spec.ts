import { AgentPatterns, CatalogPatterns, type CreateAgentFields, type ReplyPattern, type RpcRequest } from '@waggle/contracts';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { freePort, spawnApp, startServiceUnderTest, waitUntilLive, type AppProcess, type ServiceUnderTest, failure } from '@waggle/testing';
import { acceptsSecret, WebhookRegistry, type WebhookTarget } from '@waggle/webhooks';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';
import { AgentsRepository } from '../src/agents/agents.repository';

const AGENT_NOT_FOUND = { code: 'resource_not_found', status: 422, message: 'Agent not found' };
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
];

/**
 * The agent service started in-process by its own bootstrap and called over NATS as the
 * gateway and the CLI call it, with the real catalog service (a built process) answering its
 * model checks: agents CRUD scoped per workspace, soft delete, and each agent's webhook secret
 * in its row and in the webhook registry.
 */
describe('agent service over NATS: agents', () => {
  const workspace = randomUUID();
  const otherWorkspace = randomUUID();
  let catalog: AppProcess;
  let service: ServiceUnderTest;
  let redis: Redis;
  let registry: WebhookRegistry;
  let database: Client;

  const send = <P extends ReplyPattern>(pattern: P, payload: RpcRequest<P>) => service.send(pattern, payload);
  const create = (agent: Partial<CreateAgentFields> & Record<string, unknown>, workspaceId = workspace) =>
    send(AgentPatterns.createAgent, {
      workspace_id: workspaceId,
      agent: { name: 'Support', llm_model: 'gpt-6-luna', model_type: 'llm', ...agent } as CreateAgentFields,
    });

  async function registeredTarget(agentId: string): Promise<WebhookTarget> {
    const target = await registry.get('agent', agentId);
    if (!target) throw new Error(`no webhook target for agent ${agentId} in the registry`);
    return target;
  }

  beforeAll(async () => {
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    redis = new Redis(process.env.REDIS_URL as string);
    registry = new WebhookRegistry(redis);
    database = new Client({ connectionString: process.env.DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await service?.stop();
    await catalog?.stop();
    await redis?.quit();
    await database?.end();
  });

  it('creates an agent: the decisions record with unset fields null, and its webhook target in the registry', async () => {
    const agent = await create({ name: 'Plain' });
    expect(Object.keys(agent)).toEqual(RECORD_KEYS);
    expect(agent).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Plain',
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
      created_at: expect.any(String),
      updated_at: agent.created_at,
    });
    expect(new Date(agent.created_at).toISOString()).toBe(agent.created_at);
    // Triggers are authenticated from the registry, so the target is there before create answers.
    const { webhook_secret } = await send(AgentPatterns.getWebhookSecret, { workspace_id: workspace, agent_id: agent.id });
    expect(webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const target = await registeredTarget(agent.id);
    expect(target).toEqual({
      kind: 'agent',
      id: agent.id,
      workspace_id: workspace,
      secrets: [{ digest: expect.any(String), sealed: expect.any(String), expires_at: null }],
    });
    expect(acceptsSecret(target, webhook_secret)).toBe(true);
    // Sealed at rest: the row never holds the secret itself.
    const { rows } = await database.query<{ webhook_secret_sealed: string }>(
      'SELECT webhook_secret_sealed FROM agent.agents WHERE id = $1',
      [agent.id],
    );
    expect(rows[0].webhook_secret_sealed).not.toContain(webhook_secret.slice(6));
  });

  it('creates a complete agent in one call, update-only fields included, with max_token given as digits', async () => {
    const agent = await create({
      name: 'Complete',
      description: 'Answers tickets',
      instruction_prompt: 'You are helpful.',
      temperature: 0.4,
      max_token: '4096' as unknown as number,
      max_thinking_token: 1024,
      provider_prompt_cache_ttl: '5m',
      reasoning_effort: 'xhigh',
      tool_choice: 'auto',
      max_tool_calls: 3,
    });
    expect(agent).toMatchObject({
      name: 'Complete',
      description: 'Answers tickets',
      instruction_prompt: 'You are helpful.',
      temperature: 0.4,
      max_token: 4096,
      max_thinking_token: 1024,
      provider_prompt_cache_ttl: '5m',
      reasoning_effort: 'xhigh',
      tool_choice: 'auto',
      max_tool_calls: 3,
    });
    expect(await send(AgentPatterns.getAgent, { workspace_id: workspace, agent_id: agent.id })).toEqual(agent);
  });

  it('refuses a model the catalog does not have, one that is not an llm, a deprecated one and a model_type that differs, naming the model', async () => {
    const cases: Array<[Partial<CreateAgentFields>, Record<string, unknown>]> = [
      [
        { llm_model: 'no-such-model' },
        {
          code: 'validation_error',
          message: 'Invalid LLM model: no-such-model is not in the model catalog',
          details: [{ field: 'agent.llm_model' }],
        },
      ],
      [
        { llm_model: 'gpt-image-2.6-sunburst', model_type: 'image_generation' },
        { code: 'validation_error', message: expect.stringContaining('gpt-image-2.6-sunburst is a image_generation model') },
      ],
      [
        { llm_model: 'text-embedding-3-small' },
        { code: 'validation_error', message: expect.stringContaining('text-embedding-3-small is a embedding model') },
      ],
      [{ llm_model: 'gpt-4o' }, { code: 'model_deprecated', message: 'The model gpt-4o is no longer available. Choose another model.' }],
      [
        { model_type: 'image_generation' },
        {
          code: 'validation_error',
          message: 'Invalid LLM model: gpt-6-luna has model_type llm, not image_generation',
          details: [{ field: 'agent.model_type' }],
        },
      ],
    ];
    for (const [agent, expected] of cases) expect(await failure(create(agent))).toMatchObject({ status: 422, ...expected });
    expect((await send(AgentPatterns.listAgents, { workspace_id: workspace })).map((agent) => agent.name)).toEqual(['Plain', 'Complete']);
  });

  it('refuses an invalid payload with the validation envelope, naming each field', async () => {
    const missing = await failure(
      send(AgentPatterns.createAgent, {
        workspace_id: workspace,
        agent: { llm_model: 'gpt-6-luna', model_type: 'llm' } as CreateAgentFields,
      }),
    );
    expect(missing).toMatchObject({ code: 'missing_required_field', status: 422, details: [{ field: 'agent.name' }] });
    const wrong = await failure(create({ max_token: 'lots' as unknown as number, tool_choice: 'sometimes' as never }));
    expect(wrong).toMatchObject({
      code: 'validation_error',
      status: 422,
      details: [{ field: 'agent.max_token' }, { field: 'agent.tool_choice' }],
    });
  });

  it("lists only the workspace's own agents, oldest first, and answers another workspace's agent as not found", async () => {
    const theirs = await create({ name: 'Theirs' }, otherWorkspace);
    expect((await send(AgentPatterns.listAgents, { workspace_id: otherWorkspace })).map((agent) => agent.id)).toEqual([theirs.id]);
    const ours = await send(AgentPatterns.listAgents, { workspace_id: workspace });
    expect(ours.map((agent) => agent.name)).toEqual(['Plain', 'Complete']);
    expect(ours.some((agent) => agent.id === theirs.id)).toBe(false);
    const other = { workspace_id: workspace, agent_id: theirs.id };
    expect(await failure(send(AgentPatterns.getAgent, other))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.updateAgent, { ...other, agent: { name: 'Hijacked' } }))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.deleteAgent, other))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.getWebhookSecret, other))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.rotateWebhookSecret, other))).toMatchObject(AGENT_NOT_FOUND);
    expect(await send(AgentPatterns.getAgent, { workspace_id: otherWorkspace, agent_id: theirs.id })).toEqual(theirs);
  });

  it('answers an id that is not a UUID as not found, not as a validation error', async () => {
    for (const id of ['not-a-uuid', '', "' OR 1=1 --", 'x'.repeat(3000)]) {
      expect(await failure(send(AgentPatterns.getAgent, { workspace_id: workspace, agent_id: id }))).toMatchObject(AGENT_NOT_FOUND);
    }
  });

  it('updates only the named fields, unsets optional ones with null, and checks a changed model', async () => {
    const agent = await create({ name: 'Editable', description: 'before', temperature: 1, tool_choice: 'none' });
    const updated = await send(AgentPatterns.updateAgent, {
      workspace_id: workspace,
      agent_id: agent.id,
      agent: { name: 'Edited', description: null, max_token: 512, reasoning_effort: 'low' },
    });
    expect(updated).toEqual({
      ...agent,
      name: 'Edited',
      description: null,
      max_token: 512,
      reasoning_effort: 'low',
      updated_at: expect.any(String),
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(agent.updated_at));
    expect(
      await failure(
        send(AgentPatterns.updateAgent, { workspace_id: workspace, agent_id: agent.id, agent: { llm_model: 'gpt-image-2.6-sunburst' } }),
      ),
    ).toMatchObject({
      code: 'validation_error',
      status: 422,
      message: expect.stringContaining('gpt-image-2.6-sunburst'),
    });
    // The pair is checked as the agent would have it: a model_type alone that differs is refused too.
    expect(
      await failure(
        send(AgentPatterns.updateAgent, { workspace_id: workspace, agent_id: agent.id, agent: { model_type: 'image_generation' } }),
      ),
    ).toMatchObject({ code: 'validation_error', status: 422 });
    const remodelled = await send(AgentPatterns.updateAgent, {
      workspace_id: workspace,
      agent_id: agent.id,
      agent: { llm_model: 'gpt-6.1-sol', model_type: 'llm' },
    });
    expect(remodelled).toMatchObject({ llm_model: 'gpt-6.1-sol', name: 'Edited' });
    expect(await send(AgentPatterns.getAgent, { workspace_id: workspace, agent_id: agent.id })).toEqual(remodelled);
  });

  it('rotates the secret: during the overlap both verify and both are in the registry; without overlap only the new one', async () => {
    const agent = await create({ name: 'Rotating' });
    const before = await send(AgentPatterns.getWebhookSecret, { workspace_id: workspace, agent_id: agent.id });
    expect(before).toEqual({ agent_id: agent.id, webhook_secret: expect.any(String), previous_secret_expires_at: null });
    const rotated = await send(AgentPatterns.rotateWebhookSecret, { workspace_id: workspace, agent_id: agent.id, overlap_seconds: 3600 });
    expect(rotated.webhook_secret).not.toBe(before.webhook_secret);
    expect(Date.parse(rotated.previous_secret_expires_at ?? '')).toBeGreaterThan(Date.now() + 3500_000);
    expect(await send(AgentPatterns.getWebhookSecret, { workspace_id: workspace, agent_id: agent.id })).toEqual(rotated);
    const target = await registeredTarget(agent.id);
    expect(target.secrets.map((secret) => secret.expires_at)).toEqual([null, rotated.previous_secret_expires_at]);
    for (const secret of [before.webhook_secret, rotated.webhook_secret]) {
      expect(acceptsSecret(target, secret)).toBe(true);
      expect(await send(AgentPatterns.verifyWebhookSecret, { agent_id: agent.id, secret })).toEqual({
        valid: true,
        workspace_id: workspace,
      });
    }
    expect(await send(AgentPatterns.verifyWebhookSecret, { agent_id: agent.id, secret: `${rotated.webhook_secret}x` })).toEqual({
      valid: false,
      workspace_id: null,
    });

    const again = await send(AgentPatterns.rotateWebhookSecret, { workspace_id: workspace, agent_id: agent.id, overlap_seconds: 0 });
    expect(again.previous_secret_expires_at).toBeNull();
    expect((await registry.get('agent', agent.id))?.secrets).toHaveLength(1);
    for (const [secret, valid] of [
      [before.webhook_secret, false],
      [rotated.webhook_secret, false],
      [again.webhook_secret, true],
    ] as const) {
      expect(await send(AgentPatterns.verifyWebhookSecret, { agent_id: agent.id, secret })).toEqual({
        valid,
        workspace_id: valid ? workspace : null,
      });
    }
    // The secret is not part of the record: rotating it is not an update of the agent.
    expect(await send(AgentPatterns.getAgent, { workspace_id: workspace, agent_id: agent.id })).toEqual(agent);
  });

  it('deletes softly: the agent is gone from every read, write, list, secret and the registry, and its row stays', async () => {
    const agent = await create({ name: 'Doomed' });
    const { webhook_secret } = await send(AgentPatterns.getWebhookSecret, { workspace_id: workspace, agent_id: agent.id });
    expect(await send(AgentPatterns.deleteAgent, { workspace_id: workspace, agent_id: agent.id })).toEqual({ id: agent.id });
    const named = { workspace_id: workspace, agent_id: agent.id };
    expect(await failure(send(AgentPatterns.getAgent, named))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.updateAgent, { ...named, agent: { name: 'Revived' } }))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.deleteAgent, named))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.getWebhookSecret, named))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.rotateWebhookSecret, named))).toMatchObject(AGENT_NOT_FOUND);
    expect(await failure(send(AgentPatterns.verifyWebhookSecret, { agent_id: agent.id, secret: webhook_secret }))).toMatchObject(
      AGENT_NOT_FOUND,
    );
    expect((await send(AgentPatterns.listAgents, { workspace_id: workspace })).some((listed) => listed.id === agent.id)).toBe(false);
    expect(await registry.get('agent', agent.id)).toBeNull();
    expect(await send(AgentPatterns.republishWebhookTarget, { id: agent.id })).toEqual({ found: false });
    expect(await registry.get('agent', agent.id)).toBeNull();
    const { rows } = await database.query<{ name: string; deleted_at: Date | null }>(
      'SELECT name, deleted_at FROM agent.agents WHERE id = $1',
      [agent.id],
    );
    expect(rows).toEqual([{ name: 'Doomed', deleted_at: expect.any(Date) }]);
  });

  it('writes a target Redis lost again on request, and every target at start', async () => {
    const agent = await create({ name: 'Healing' });
    const written = await registry.get('agent', agent.id);
    await registry.remove('agent', agent.id);
    expect(await send(AgentPatterns.republishWebhookTarget, { id: agent.id })).toEqual({ found: true });
    expect(await registry.get('agent', agent.id)).toEqual(written);
    expect(await send(AgentPatterns.republishWebhookTarget, { id: randomUUID() })).toEqual({ found: false });

    await registry.remove('agent', agent.id);
    // A second replica (the built app, as production starts it) rewrites every active agent's
    // target while it starts, before its HTTP server (and so /health/live) answers.
    const replica = spawnApp('agent', await freePort(), { LOG_LEVEL: 'warn' });
    try {
      await waitUntilLive(replica);
      expect(await registry.get('agent', agent.id)).toEqual(written);
    } finally {
      await replica.stop();
    }
  });

  describe('fallbacks and response_format (decisions D41, D42)', () => {
    const FORMAT = { type: 'json_schema' as const, name: 'ticket', schema: { type: 'object', required: ['summary'] }, strict: true };
    const SCOUT = 'together/meta-llama/Llama-4-Scout-17B-16E-Instruct';
    const NO_TOOLS = 'together/deepseek-ai/DeepSeek-R1-Distill-Llama-70B';
    const update = (agentId: string, agent: Record<string, unknown>) =>
      send(AgentPatterns.updateAgent, { workspace_id: workspace, agent_id: agentId, agent });
    const get = (agentId: string) => send(AgentPatterns.getAgent, { workspace_id: workspace, agent_id: agentId });

    it('relies on catalog models with these capabilities', async () => {
      const flags = async (model: string) => {
        const route = await send(CatalogPatterns.getModelRoute, { model_id: model });
        return [route.status, route.is_vision, route.is_tool_calling, route.is_json_schema];
      };
      expect(await flags('gpt-6-luna')).toEqual(['active', true, true, true]);
      expect(await flags('claude-haiku-5-5')).toEqual(['active', true, true, true]);
      expect(await flags('codestral-latest')).toEqual(['active', false, true, true]);
      expect(await flags('deepseek-v4-pro')).toEqual(['active', false, true, false]);
      expect(await flags(NO_TOOLS)).toEqual(['active', false, false, false]);
      expect(await flags(SCOUT)).toEqual(['active', true, true, false]);
    });

    it('refuses on create a fallback that cannot do what the agent may ask of its own model, or that the catalog does not know', async () => {
      const cases: Array<[Partial<CreateAgentFields>, string, string]> = [
        [{ fallbacks: ['claude-haiku-5-5', 'codestral-latest'] }, 'agent.fallbacks[1]', 'codestral-latest cannot see images'],
        [{ llm_model: 'deepseek-v4-pro', fallbacks: [NO_TOOLS] }, 'agent.fallbacks[0]', `${NO_TOOLS} cannot call tools`],
        [{ fallbacks: [SCOUT], response_format: FORMAT }, 'agent.fallbacks[0]', `${SCOUT} cannot answer to a JSON schema natively`],
        [{ fallbacks: ['no-such-model'] }, 'agent.fallbacks[0]', 'no-such-model is not in the model catalog'],
      ];
      for (const [agent, field, reason] of cases) {
        const message = `Invalid fallback: ${reason}${reason.includes('cannot') ? ', which this run needs' : ''}`;
        expect(await failure(create({ name: 'Unready', ...agent }))).toMatchObject({
          code: 'validation_error',
          status: 422,
          message,
          details: [{ field, messages: [message] }],
        });
      }
      const { rows } = await database.query("SELECT 1 FROM agent.agents WHERE name = 'Unready'");
      expect(rows).toEqual([]);
    });

    it('keeps both through create, get, update and a run, re-checks the fallbacks an update would leave, and unsets both with null', async () => {
      const agent = await create({ name: 'Structured', fallbacks: ['claude-haiku-5-5', SCOUT] });
      expect(agent).toMatchObject({ fallbacks: ['claude-haiku-5-5', SCOUT], response_format: null });
      expect(await get(agent.id)).toEqual(agent);

      // A response format would need Scout to answer to a schema: refused, nothing changed.
      const refused = await failure(update(agent.id, { response_format: FORMAT }));
      expect(refused).toMatchObject({ code: 'validation_error', details: [{ field: 'agent.fallbacks[1]' }] });
      expect(await get(agent.id)).toEqual(agent);

      const structured = await update(agent.id, { fallbacks: ['claude-haiku-5-5'], response_format: FORMAT });
      expect(structured).toMatchObject({ fallbacks: ['claude-haiku-5-5'], response_format: FORMAT });
      expect(await get(agent.id)).toEqual(structured);
      // What a run reads of the agent.
      expect(await service.app.get(AgentsRepository).findRunnable(workspace, agent.id)).toMatchObject({
        llmModel: 'gpt-6-luna',
        fallbacks: ['claude-haiku-5-5'],
        responseFormat: FORMAT,
      });

      // Another model is checked with the fallbacks it keeps: the same as the new model is refused.
      expect(await failure(update(agent.id, { llm_model: 'claude-haiku-5-5' }))).toMatchObject({
        code: 'validation_error',
        message: 'Invalid fallback: claude-haiku-5-5 is already the model or an earlier fallback',
      });
      // An update naming none of the three does not ask about the fallbacks.
      expect(await update(agent.id, { name: 'Renamed' })).toMatchObject({ name: 'Renamed', fallbacks: ['claude-haiku-5-5'] });

      const unset = await update(agent.id, { fallbacks: null, response_format: null });
      expect(unset).toMatchObject({ fallbacks: [], response_format: null });
      expect(await get(agent.id)).toEqual(unset);
      expect(await service.app.get(AgentsRepository).findRunnable(workspace, agent.id)).toMatchObject({
        fallbacks: [],
        responseFormat: null,
      });
    });
  });

  it('publishes agents as MCP tools: listed by name, and a tool name six creates ask for at once given to one of them only', async () => {
    const mine = randomUUID();
    const first = await create({ name: 'Front Desk', description: 'Greets', publish: { mcp: true } }, mine);
    await create({ name: 'Quiet' }, mine);
    const tools = await send(AgentPatterns.listMcpTools, { workspace_id: mine });
    expect(tools).toEqual([
      expect.objectContaining({ name: 'agent_front_desk', description: 'Greets', target: { kind: 'agent', agent_id: first.id } }),
    ]);
    const racing = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => create({ name: `Racer ${index}`, publish: { mcp: true, tool_name: 'raced' } }, mine)),
    );
    expect(racing.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect((racing.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
      code: 'validation_error',
      details: [{ field: 'agent.publish.tool_name' }],
    });
    expect((await send(AgentPatterns.listMcpTools, { workspace_id: mine })).map((tool) => tool.name)).toEqual([
      'agent_front_desk',
      'raced',
    ]);
    // Another workspace's names are its own.
    await create({ name: 'Front Desk', publish: { mcp: true } }, randomUUID());
  });

  it('answers a model check with upstream_request_failed when the catalog is down, creating nothing', async () => {
    await catalog.stop();
    const refused = await failure(create({ name: 'Orphan' }));
    expect(refused).toMatchObject({ code: 'upstream_request_failed', status: 502 });
    const { rows } = await database.query("SELECT 1 FROM agent.agents WHERE name = 'Orphan'");
    expect(rows).toEqual([]);
  });
});
