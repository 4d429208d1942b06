import {
  CallbackReceiver,
  cliJson,
  collectSse,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import type { AgentRecord, AgentWebhookSecretView, AppliedDeployment, AppliedWorkflowDeployment } from '@waggle/contracts';
import { FakeMcpServer } from '@waggle/fake-provider';
import { deliveryIdFor } from '@waggle/webhooks';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nastyString } from './inputs';
import { firstRunBody, PROMPTS, ROUTES, SHARED_IDEMPOTENCY_KEY, WORKFLOWS, type Context, type RouteCase, type Workspace } from './routes';

/** What a tier's tests reach once the stack is up (after the beforeAll that useGeneratedStack registers). */
export interface GeneratedStack {
  readonly apps: AppProcess[];
  readonly gateway: string;
  readonly context: Context;
  /** What only workspace B has: none of it may appear in an answer to workspace A's key. */
  readonly secretsOfB: string[];
  /** Counts one request sent, for the tier's closing line. */
  count(): void;
  /** Path parameters for a route: valid ids (A's and B's), valid ids with one swapped for an arbitrary one, arbitrary ones. */
  paramArbitrary(route: RouteCase): fc.Arbitrary<string[]>;
  /** The credential headers of a choice: 'a' or 'b' (that workspace's key or webhook secret), 'none', or a header value as it is. */
  credentialHeaders(route: RouteCase, choice: string): Record<string, string>;
  /** Every app is still the process it started as: not exited, and /health/live's started_at unchanged. */
  expectNoRestart(): Promise<void>;
}

/**
 * Starts every app against the fake provider and a callback receiver, and gives two workspaces
 * (A and B) a prompt deployment, finished runs of each kind, a webhook-triggered delivery,
 * agents, knowledge bases and a workflow: what the generated tiers' valid requests name.
 * Registers its own beforeAll and afterAll; `tier` names the closing line. `gatewayLogLevel`
 * `info` turns on the gateway's access log, whose line is written after every answer.
 */
export function useGeneratedStack(
  tier: string,
  { gatewayLogLevel = 'error' }: { gatewayLogLevel?: 'error' | 'info' } = {},
): GeneratedStack {
  const fake = new FakeProviderServer();
  const receiver = new CallbackReceiver();
  const mcp = new FakeMcpServer();
  const apps: AppProcess[] = [];
  let gateway: string;
  let context: Context;
  let secretsOfB: string[];
  let requests = 0;
  let callbackBase: string;
  /** Each app's /health/live start time, read once it is up: a restart would change it. */
  const startedAt = new Map<string, string>();

  async function createWorkspace(name: string, deployment: string): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      name,
      '--plan',
      'enterprise',
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-generated-')), 'prompts.yaml');
    writeFileSync(file, PROMPTS(deployment));
    const [applied] = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', created.workspace_id]);
    // Both workspaces start their first run under the same Idempotency-Key: each is its own.
    const run = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${created.api_key}`,
        'content-type': 'application/json',
        'idempotency-key': SHARED_IDEMPOTENCY_KEY,
      },
      body: JSON.stringify(firstRunBody(deployment, name)),
    });
    expect(run.status).toBe(200);
    const { request_id } = (await run.json()) as { request_id: string };
    const streamed = await fetch(`${gateway}/v1/prompt/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ deployment, variant: 'default', inputs: { question: `only ${name}` }, streaming: true, background: true }),
    });
    const events = await collectSse(streamed);
    const streamRequestId = (events[0] as { request_id: string }).request_id;
    expect(events.at(-1)).toBe('[DONE]');
    const variant = applied.variants[0].variant_id;
    const triggered = await fetch(`${gateway}/v1/prompt/webhooks/${applied.prompt_endpoint_id}/variants/${variant}`, {
      method: 'POST',
      headers: { 'x-service-webhook-secret': applied.webhook_secret, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { question: `only ${name}` }, async: { callback_url: `${callbackBase}/setup` } }),
    });
    expect(triggered.status).toBe(202);
    const { request_id: triggeredId } = (await triggered.json()) as { request_id: string };
    const makeAgent = async (agentName: string) => {
      const response = await fetch(`${gateway}/v1/public/workspaces/${created.workspace_id}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          agent: { name: agentName, llm_model: 'fake-generated-chat', model_type: 'llm', instruction_prompt: `only ${name}` },
        }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { agent: AgentRecord }).agent;
    };
    const agent = await makeAgent(`agent of ${name}`);
    const disposable = await makeAgent(`disposable agent of ${name}`);
    const authorized = { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json' };
    const makeKnowledgeBase = async (kbName: string) => {
      const response = await fetch(`${gateway}/v1/public/workspaces/${created.workspace_id}/knowledge_bases`, {
        method: 'POST',
        headers: authorized,
        body: JSON.stringify({ knowledge_base: { name: kbName } }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { knowledge_base: { id: string } }).knowledge_base.id;
    };
    const knowledgeBaseId = await makeKnowledgeBase(`knowledge base of ${name}`);
    const disposableKnowledgeBaseId = await makeKnowledgeBase(`disposable knowledge base of ${name}`);
    const added = await fetch(`${gateway}/v1/private/knowledge_bases/${knowledgeBaseId}/items`, {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({ url: `https://docs.example.invalid/only-${name.replace(/ /g, '-')}.md` }),
    });
    expect(added.status).toBe(200);
    const knowledgeBaseItemId = ((await added.json()) as { knowledge_base_item: { id: string } }).knowledge_base_item.id;
    const appliedWorkflows = await fetch(`${gateway}/v1/private/workflows/apply`, {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({ workflows: WORKFLOWS(`${deployment}-workflow`) }),
    });
    expect(appliedWorkflows.status).toBe(200);
    const [workflow] = ((await appliedWorkflows.json()) as { workflows: AppliedWorkflowDeployment[] }).workflows;
    const workflowRun = await fetch(`${gateway}/v1/workflow/invoke`, {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({ deployment: workflow.deployment, variant: 'default', inputs: { topic: `only ${name}` } }),
    });
    expect(workflowRun.status).toBe(200);
    const { request_id: workflowRunId } = (await workflowRun.json()) as { request_id: string };
    const slug = name.replace(/ /g, '-').toLowerCase();
    const makeMcpServer = async (id: string) => {
      const response = await fetch(`${gateway}/v1/private/mcp_servers`, {
        method: 'POST',
        headers: authorized,
        body: JSON.stringify({ id, name: `MCP server of ${name}`, url: mcp.url, headers: { 'X-Only': `only ${name} header` } }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { id: string }).id;
    };
    const mcpServerId = await makeMcpServer(`only-${slug}`);
    const disposableMcpServerId = await makeMcpServer(`disposable-${slug}`);
    const makeGoverned = async (path: 'budgets' | 'rate_limits', body: Record<string, unknown>) => {
      const response = await fetch(`${gateway}/v1/private/${path}`, { method: 'POST', headers: authorized, body: JSON.stringify(body) });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const budgetId = await makeGoverned('budgets', {
      scope: 'user',
      scope_id: `only ${slug} user`,
      period: 'month',
      limit_micros: 1_000_000,
    });
    const disposableBudgetId = await makeGoverned('budgets', { scope: 'workspace', period: 'day', limit_micros: 1_000_000 });
    const rateLimitId = await makeGoverned('rate_limits', { scope: 'user', scope_id: `only ${slug} user`, requests_per_minute: 1_000_000 });
    const disposableRateLimitId = await makeGoverned('rate_limits', {
      scope: 'user',
      scope_id: `disposable ${slug}`,
      tokens_per_minute: 1_000_000,
    });
    const makeDataset = async (datasetName: string) => {
      const response = await fetch(`${gateway}/v1/private/datasets`, {
        method: 'POST',
        headers: authorized,
        body: JSON.stringify({ name: datasetName }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const datasetId = await makeDataset(`only-${slug}`);
    const disposableDatasetId = await makeDataset(`disposable-${slug}`);
    const version = await fetch(`${gateway}/v1/private/datasets/${datasetId}/versions`, {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({ rows: [{ inputs: { question: `only ${name} row` } }] }),
    });
    expect(version.status).toBe(201);
    const experimentRun = await fetch(`${gateway}/v1/private/experiment_runs`, {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({
        dataset: datasetId,
        dataset_version: 1,
        candidates: [{ name: 'deployed', deployment: applied.deployment, variant: 'default' }],
        evaluators: [{ type: 'contains', value: 'only' }],
      }),
    });
    expect(experimentRun.status).toBe(201);
    const { id: experimentRunId } = (await experimentRun.json()) as { id: string };
    const providerKey = `only-${slug}-provider-key`;
    const storedKey = await fetch(`${gateway}/v1/private/provider_credentials`, {
      method: 'POST',
      headers: authorized,
      body: JSON.stringify({ provider: 'fake', api_key: providerKey }),
    });
    expect(storedKey.status).toBe(201);
    const secret = await fetch(`${gateway}/v1/private/agents/${agent.id}/webhook_secret`, {
      headers: { authorization: `Bearer ${created.api_key}` },
    });
    const { webhook_secret: agentSecret } = (await secret.json()) as { webhook_secret: AgentWebhookSecretView };
    return {
      id: created.workspace_id,
      key: created.api_key,
      deployment: applied,
      workflow,
      workflowRunId,
      requestId: request_id,
      streamRequestId,
      deliveryId: deliveryIdFor(triggeredId),
      agent,
      agentSecret: agentSecret.webhook_secret,
      disposableAgentId: disposable.id,
      knowledgeBaseId,
      knowledgeBaseItemId,
      disposableKnowledgeBaseId,
      mcpServerId,
      disposableMcpServerId,
      budgetId,
      disposableBudgetId,
      rateLimitId,
      disposableRateLimitId,
      datasetId,
      disposableDatasetId,
      experimentRunId,
      providerKey,
    };
  }

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    callbackBase = await receiver.start();
    await mcp.start();
    const env = { LOG_LEVEL: 'error', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', CALLBACK_URL_ALLOWLIST: '127.0.0.1' };
    const assetDir = mkdtempSync(join(tmpdir(), 'waggle-generated-assets-'));
    for (const app of ['catalog', 'invocation', 'callback-dispatcher', 'agent', 'knowledge-base', 'asset', 'gateway'] as const)
      apps.push(
        spawnApp(
          app,
          await freePort(),
          app === 'asset'
            ? { ...env, ASSET_STORAGE_DIR: assetDir }
            : app === 'gateway'
              ? { ...env, LOG_LEVEL: gatewayLogLevel }
              : app === 'agent'
                ? { ...env, MCP_URL_ALLOWLIST: '127.0.0.1' }
                : env,
        ),
      );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    for (const app of apps)
      startedAt.set(app.app, ((await (await fetch(`${app.baseUrl}/health/live`)).json()) as { started_at: string }).started_at);
    gateway = apps[apps.length - 1].baseUrl;
    await loadCatalogWithFakeModels('2099.7.1', [
      fakeModel('fake-generated-chat', { reasoning: false }),
      // A fallback that can stand in for anything a generated definition asks (D41).
      fakeModel('fake-generated-json', { reasoning: false, json_schema: true, tool_calling: true, vision: true }),
    ]);
    const [a, b] = [await createWorkspace('generated A', 'generated-a'), await createWorkspace('generated B', 'generated-b-private')];
    context = { a, b, callbackUrl: `${callbackBase}/generated`, mcpUrl: mcp.url };
    const assetOfB = new FormData();
    assetOfB.append('file', new Blob(['only generated B']), 'only-generated-b.txt');
    const uploaded = await fetch(`${gateway}/v1/public/workspaces/${b.id}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.key}` },
      body: assetOfB,
    });
    expect(uploaded.status).toBe(200);
    const { asset: bAsset } = (await uploaded.json()) as { asset: { id: string; sha256: string } };
    secretsOfB = [
      b.id,
      b.requestId,
      b.streamRequestId,
      b.deliveryId,
      b.deployment.deployment,
      b.deployment.webhook_secret,
      b.deployment.prompt_endpoint_id,
      b.workflow.deployment,
      b.workflow.webhook_secret,
      b.workflow.workflow_deployment_id,
      b.workflowRunId,
      'only generated B',
      b.agent.id,
      b.agentSecret,
      b.disposableAgentId,
      b.knowledgeBaseId,
      b.knowledgeBaseItemId,
      b.disposableKnowledgeBaseId,
      b.mcpServerId,
      b.disposableMcpServerId,
      b.providerKey,
      'only generated B header',
      b.budgetId,
      b.disposableBudgetId,
      b.rateLimitId,
      b.disposableRateLimitId,
      b.datasetId,
      b.disposableDatasetId,
      'only generated B row',
      'only generated-b-private user',
      bAsset.id,
      bAsset.sha256,
      'only-generated-b',
    ].filter(Boolean) as string[];
  });

  afterAll(async () => {
    process.stdout.write(`${tier}: ${requests} requests across ${ROUTES.length} routes\n`);
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await receiver.stop();
    await fake.stop();
    await mcp.stop();
  });

  function paramArbitrary(route: RouteCase): fc.Arbitrary<string[]> {
    const count = (route.path.match(/\{\d\}/g) ?? []).length;
    const arbitrary = fc.array(nastyString, { minLength: count, maxLength: count });
    const valid = route.validParams?.(context) ?? [];
    if (valid.length === 0) return arbitrary;
    // Valid ids (A's and B's), and valid ids with one of them swapped for an arbitrary one.
    return fc.oneof(
      fc.constantFrom(...valid),
      fc
        .tuple(fc.constantFrom(...valid), arbitrary, fc.nat({ max: count - 1 }))
        .map(([ids, random, index]) => ids.map((id, at) => (at === index ? random[at] : id))),
      arbitrary,
    );
  }

  function credentialHeaders(route: RouteCase, choice: string): Record<string, string> {
    if (route.credentials === 'webhook' || route.credentials === 'agent-webhook') {
      const secrets: Record<string, string> =
        route.credentials === 'webhook'
          ? { a: context.a.deployment.webhook_secret ?? '', b: context.b.deployment.webhook_secret ?? '' }
          : { a: context.a.agentSecret, b: context.b.agentSecret };
      return choice in secrets
        ? { 'x-service-webhook-secret': secrets[choice] }
        : choice === 'none'
          ? {}
          : { 'x-service-webhook-secret': choice };
    }
    const keys: Record<string, string> = { a: `Bearer ${context.a.key}`, b: `Bearer ${context.b.key}` };
    if (choice in keys) return { authorization: keys[choice] };
    return choice === 'none' ? {} : { authorization: choice };
  }

  async function expectNoRestart(): Promise<void> {
    for (const app of apps) {
      expect({ app: app.app, exitCode: app.child.exitCode, signal: app.child.signalCode }).toEqual({
        app: app.app,
        exitCode: null,
        signal: null,
      });
      const { started_at } = (await (await fetch(`${app.baseUrl}/health/live`)).json()) as { started_at: string };
      expect({ app: app.app, started_at }).toEqual({ app: app.app, started_at: startedAt.get(app.app) });
    }
  }

  return {
    apps,
    get gateway() {
      return gateway;
    },
    get context() {
      return context;
    },
    get secretsOfB() {
      return secretsOfB;
    },
    count: () => {
      requests += 1;
    },
    paramArbitrary,
    credentialHeaders,
    expectNoRestart,
  };
}
