import {
  DATASET_UPLOAD_MAX_BYTES,
  defaultMcpToolName,
  type AgentRecord,
  type AppliedDeployment,
  type AppliedWorkflowDeployment,
} from '@waggle/contracts';

/**
 * Every route of the gateway, with what a valid request to it looks like: the route table the
 * generated-input tier (public-routes.gen-spec.ts) and the raw-HTTP tier (raw-http.gen-spec.ts)
 * both drive. Services add their routes to ROUTES.
 */

export const PROMPTS = (deployment: string) => `
prompts:
  - deployment: ${deployment}
    variants:
      - name: default
        model: fake-generated-chat
        messages:
          - { role: user, content: "{{ question }}" }
        publish: { mcp: true }
`;

/** A workflow file's `workflows:` list (as JSON): one template step over one input. */
export const WORKFLOWS = (deployment: string) => [
  {
    deployment,
    variants: [
      {
        name: 'default',
        inputs: { topic: { type: 'text', required: true } },
        output: '{{ note.output }}',
        steps: [{ id: 'note', type: 'template', text: 'About {{ topic }}' }],
      },
    ],
  },
];

export interface Workspace {
  id: string;
  key: string;
  deployment: AppliedDeployment;
  workflow: AppliedWorkflowDeployment;
  /** A finished workflow run (its request id). */
  workflowRunId: string;
  requestId: string;
  /** A finished background prompt stream whose events are kept (the events route replays it). */
  streamRequestId: string;
  /** The callback delivery of a webhook-triggered run. */
  deliveryId: string;
  agent: AgentRecord;
  agentSecret: string;
  /** An agent the DELETE route may delete (the others stay for the routes that read them). */
  disposableAgentId: string;
  /** A knowledge base with one item, and one the DELETE route may delete. */
  knowledgeBaseId: string;
  knowledgeBaseItemId: string;
  disposableKnowledgeBaseId: string;
  /** An MCP server (on the stack's fake MCP server), and one the DELETE route may delete. */
  mcpServerId: string;
  disposableMcpServerId: string;
  /** A budget and a rate limit (usage governance), and one of each the DELETE routes may delete. */
  budgetId: string;
  disposableBudgetId: string;
  rateLimitId: string;
  disposableRateLimitId: string;
  /** A dataset with one version of one row, and one the DELETE route may delete. */
  datasetId: string;
  disposableDatasetId: string;
  /** An experiment run over that dataset (its request id). */
  experimentRunId: string;
  /** The workspace's own key for the `fake` provider (stored; never to be seen by another workspace, or at all). */
  providerKey: string;
}

/** How a case authenticates: a workspace key (A's, B's or a broken one), or a webhook secret. */
export type Credentials = 'key' | 'webhook' | 'agent-webhook' | 'none';

export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** With `{0}`, `{1}`… for the generated path parameters. */
  path: string;
  credentials: Credentials;
  /** A valid body the generated ones start from; undefined for routes that take none. */
  validBody?: (context: Context) => unknown;
  /** Valid values for the path parameters, mixed in with arbitrary ones. */
  validParams?: (context: Context) => string[][];
  query?: boolean;
  /**
   * The string field (a dot path into the valid body) that grows to make bodies of 0.9 to
   * 5.1 MiB; without one, an unexpected field carries the size (and is refused as such).
   */
  sized?: string;
  /** A valid body of any size up to the limit succeeds, rather than being refused for a field's own bound. */
  servesLarge?: boolean;
  /** Headers of the run lifecycle it takes, sent valid, arbitrary or not at all: `Idempotency-Key` (a run-starting route) or `Last-Event-ID`. */
  lifecycleHeader?: 'idempotency-key' | 'last-event-id';
  /** The route's own body limit, when it is not the gateway's MAX_JSON_BODY_BYTES (the MCP server's 1 MiB): past it, 413. */
  bodyLimitBytes?: number;
}

export interface Context {
  a: Workspace;
  b: Workspace;
  callbackUrl: string;
  /** The stack's fake MCP server (on 127.0.0.1, which the agent service is allowed to reach). */
  mcpUrl: string;
}

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/public/models', credentials: 'key' },
  { method: 'GET', path: '/v1/models', credentials: 'key' },
  { method: 'GET', path: '/v1/error_codes', credentials: 'none', query: true },
  { method: 'GET', path: '/v1/public/openapi.json', credentials: 'none' },
  {
    method: 'POST',
    path: '/v1/prompt/invoke',
    credentials: 'key',
    validBody: invokeBody,
    sized: 'inputs.question',
    servesLarge: true,
    lifecycleHeader: 'idempotency-key',
  },
  {
    method: 'POST',
    path: '/v1/invoke',
    credentials: 'key',
    validBody: invokeBody,
    sized: 'inputs.question',
    servesLarge: true,
    lifecycleHeader: 'idempotency-key',
  },
  {
    method: 'GET',
    path: '/v1/public/requests/{0}',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.requestId], [b.requestId]],
  },
  {
    method: 'POST',
    path: '/v1/public/requests/{0}/cancel',
    credentials: 'key',
    // Finished runs: a cancel of A's answers its status and changes nothing, B's is not found.
    validParams: ({ a, b }) => [[a.requestId], [a.streamRequestId], [b.requestId], [b.streamRequestId]],
  },
  {
    method: 'GET',
    path: '/v1/public/requests/{0}/events',
    credentials: 'key',
    query: true,
    lifecycleHeader: 'last-event-id',
    validParams: ({ a, b }) => [[a.streamRequestId], [a.requestId], [b.streamRequestId], [b.requestId]],
  },
  {
    method: 'POST',
    path: '/v1/prompt/webhooks/{0}/variants/{1}',
    credentials: 'webhook',
    lifecycleHeader: 'idempotency-key',
    validBody: ({ callbackUrl }) => ({
      inputs: { question: 'generated' },
      metadata: { case: 'generated' },
      user: 'fuzz',
      async: { callback_url: callbackUrl },
    }),
    sized: 'inputs.question',
    servesLarge: true,
    validParams: ({ a, b }) => [
      [a.deployment.prompt_endpoint_id, a.deployment.variants[0].variant_id],
      [b.deployment.prompt_endpoint_id, b.deployment.variants[0].variant_id],
    ],
  },
  {
    method: 'POST',
    path: '/v1/agent/invoke',
    credentials: 'key',
    lifecycleHeader: 'idempotency-key',
    validBody: ({ a }) => ({
      agent: a.agent.id,
      message: 'generated',
      thread_id: 'generated-thread',
      metadata: { case: 'generated' },
      user: 'fuzz',
      messages: [{ role: 'user', content: 'earlier' }],
    }),
    sized: 'message',
    servesLarge: true,
  },
  {
    method: 'POST',
    path: '/v1/agent/webhooks/{0}',
    credentials: 'agent-webhook',
    lifecycleHeader: 'idempotency-key',
    validBody: ({ callbackUrl }) => ({
      message: 'generated',
      thread_id: 'generated-hook',
      metadata: { case: 'generated' },
      async: { callback_url: callbackUrl },
    }),
    sized: 'message',
    servesLarge: true,
    validParams: ({ a, b }) => [[a.agent.id], [b.agent.id]],
  },
  { method: 'GET', path: '/v1/private/prompts', credentials: 'key' },
  {
    method: 'POST',
    path: '/v1/private/prompts/apply',
    credentials: 'key',
    validBody: () => ({
      prompts: [
        {
          deployment: 'generated-apply',
          variants: [{ name: 'main', model: 'fake-generated-chat', messages: [{ role: 'user', content: 'Say {{ thing }}' }] }],
        },
      ],
    }),
    sized: 'prompts.0.variants.0.messages.0.content',
  },
  {
    method: 'GET',
    path: '/v1/private/prompts/{0}/variants/{1}/versions',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default'],
      [b.deployment.deployment, 'default'],
    ],
  },
  // A prompt variant's release pointers (the spec's decisions: labels and pointers, release gate).
  {
    method: 'GET',
    path: '/v1/private/prompts/{0}/variants/{1}/history',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default'],
      [b.deployment.deployment, 'default'],
    ],
  },
  {
    method: 'PUT',
    path: '/v1/private/prompts/{0}/variants/{1}/labels/{2}',
    credentials: 'key',
    validBody: () => ({ version: 1 }),
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default', 'generated'],
      [b.deployment.deployment, 'default', 'generated'],
    ],
  },
  {
    method: 'DELETE',
    path: '/v1/private/prompts/{0}/variants/{1}/labels/{2}',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default', 'generated'],
      [b.deployment.deployment, 'default', 'generated'],
    ],
  },
  {
    method: 'POST',
    path: '/v1/private/prompts/{0}/variants/{1}/promote',
    credentials: 'key',
    validBody: () => ({ version: 1, reason: 'generated' }),
    sized: 'reason',
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default'],
      [b.deployment.deployment, 'default'],
    ],
  },
  {
    method: 'POST',
    path: '/v1/private/prompts/{0}/variants/{1}/rollback',
    credentials: 'key',
    validBody: () => ({ reason: 'generated' }),
    sized: 'reason',
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default'],
      [b.deployment.deployment, 'default'],
    ],
  },
  {
    method: 'GET',
    path: '/v1/private/prompts/{0}/variants/{1}/protection',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default'],
      [b.deployment.deployment, 'default'],
    ],
  },
  {
    method: 'PUT',
    path: '/v1/private/prompts/{0}/variants/{1}/protection',
    credentials: 'key',
    validBody: () => ({ protected: false, min_pass_rate: 1, max_age_days: 7 }),
    validParams: ({ a, b }) => [
      [a.deployment.deployment, 'default'],
      [b.deployment.deployment, 'default'],
    ],
  },
  {
    method: 'GET',
    path: '/v1/private/prompts/{0}/webhook_secret',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.deployment.deployment], [b.deployment.deployment]],
  },
  {
    method: 'POST',
    path: '/v1/private/prompts/{0}/webhook_secret/rotate',
    credentials: 'key',
    validBody: () => ({ overlap_seconds: 60 }),
    validParams: ({ a, b }) => [[a.deployment.deployment], [b.deployment.deployment]],
  },
  {
    method: 'POST',
    path: '/v1/workflow/invoke',
    credentials: 'key',
    lifecycleHeader: 'idempotency-key',
    validBody: ({ a, callbackUrl }) => ({
      deployment: a.workflow.deployment,
      variant: 'default',
      inputs: { topic: 'generated' },
      metadata: { case: 'generated' },
      user: 'fuzz',
      async: { enabled: true, callback_url: callbackUrl },
    }),
    sized: 'inputs.topic',
    servesLarge: true,
  },
  { method: 'GET', path: '/v1/workflow_runs/{0}', credentials: 'key', validParams: ({ a, b }) => [[a.workflowRunId], [b.workflowRunId]] },
  {
    method: 'GET',
    path: '/v1/private/workflow_runs/{0}/steps',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.workflowRunId], [b.workflowRunId]],
  },
  { method: 'GET', path: '/v1/private/workflows', credentials: 'key' },
  {
    method: 'POST',
    path: '/v1/private/workflows/apply',
    credentials: 'key',
    validBody: () => ({ workflows: WORKFLOWS('generated-workflow-apply') }),
    sized: 'workflows.0.variants.0.steps.0.text',
  },
  {
    method: 'GET',
    path: '/v1/private/workflows/{0}/variants/{1}/versions',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.workflow.deployment, 'default'],
      [b.workflow.deployment, 'default'],
    ],
  },
  {
    method: 'GET',
    path: '/v1/private/workflows/{0}/webhook_secret',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.workflow.deployment], [b.workflow.deployment]],
  },
  {
    method: 'POST',
    path: '/v1/private/workflows/{0}/webhook_secret/rotate',
    credentials: 'key',
    validBody: () => ({ overlap_seconds: 60 }),
    validParams: ({ a, b }) => [[a.workflow.deployment], [b.workflow.deployment]],
  },
  { method: 'GET', path: '/v1/private/requests', credentials: 'key', query: true },
  { method: 'GET', path: '/v1/private/deliveries', credentials: 'key', query: true },
  { method: 'GET', path: '/v1/private/deliveries/{0}', credentials: 'key', validParams: ({ a, b }) => [[a.deliveryId], [b.deliveryId]] },
  {
    method: 'POST',
    path: '/v1/private/deliveries/{0}/redeliver',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.deliveryId], [b.deliveryId]],
  },
  { method: 'GET', path: '/v1/public/workspaces/{0}/agents', credentials: 'key', validParams: ({ a, b }) => [[a.id], [b.id]] },
  // The multipart upload (POST) has its own property below: its bodies are not JSON.
  { method: 'GET', path: '/v1/public/workspaces/{0}/assets', credentials: 'key', validParams: ({ a, b }) => [[a.id], [b.id]] },
  { method: 'GET', path: '/v1/private/assets', credentials: 'key', query: true },
  {
    method: 'POST',
    path: '/v1/public/workspaces/{0}/agents',
    credentials: 'key',
    validBody: agentBody,
    sized: 'agent.instruction_prompt',
    servesLarge: true,
    validParams: ({ a, b }) => [[a.id], [b.id]],
  },
  { method: 'GET', path: '/v1/public/workspaces/{0}/agents/{1}', credentials: 'key', validParams: agentParams },
  {
    method: 'PATCH',
    path: '/v1/public/workspaces/{0}/agents/{1}',
    credentials: 'key',
    validBody: () => ({ agent: { name: 'generated update', description: null, temperature: 0.5, tool_choice: 'auto', max_token: 128 } }),
    sized: 'agent.instruction_prompt',
    servesLarge: true,
    validParams: agentParams,
  },
  {
    method: 'GET',
    path: '/v1/private/agents/{0}/webhook_secret',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.agent.id], [b.agent.id]],
  },
  {
    method: 'POST',
    path: '/v1/private/agents/{0}/webhook_secret/rotate',
    credentials: 'key',
    validBody: () => ({ overlap_seconds: 60 }),
    validParams: ({ a, b }) => [[a.agent.id], [b.agent.id]],
  },
  { method: 'GET', path: '/v1/public/workspaces/{0}/knowledge_bases', credentials: 'key', validParams: ({ a, b }) => [[a.id], [b.id]] },
  {
    method: 'POST',
    path: '/v1/public/workspaces/{0}/knowledge_bases',
    credentials: 'key',
    validBody: () => ({
      knowledge_base: { name: 'generated', description: 'd', search_type: 'vector', search_score_threshold: 0.5, search_chunk_limit: '7' },
    }),
    sized: 'knowledge_base.description',
    validParams: ({ a, b }) => [[a.id], [b.id]],
  },
  { method: 'GET', path: '/v1/public/workspaces/{0}/knowledge_bases/{1}', credentials: 'key', validParams: knowledgeBaseParams },
  {
    method: 'PATCH',
    path: '/v1/public/workspaces/{0}/knowledge_bases/{1}',
    credentials: 'key',
    validBody: () => ({ knowledge_base: { name: 'generated update', description: null, search_type: 'full_text', search_chunk_limit: 9 } }),
    sized: 'knowledge_base.description',
    validParams: knowledgeBaseParams,
  },
  { method: 'GET', path: '/v1/public/workspaces/{0}/knowledge_bases/{1}/items', credentials: 'key', validParams: knowledgeBaseParams },
  {
    method: 'POST',
    path: '/v1/public/workspaces/{0}/knowledge_bases/{1}/search',
    credentials: 'key',
    validBody: () => ({ search_query: 'generated', search_type: 'hybrid', search_chunk_limit: 3, search_score_threshold: 0 }),
    sized: 'search_query',
    validParams: knowledgeBaseParams,
  },
  {
    method: 'POST',
    path: '/v1/private/knowledge_bases/{0}/items',
    credentials: 'key',
    validBody: () => ({ url: 'https://docs.example.invalid/generated.md', name: 'generated' }),
    sized: 'name',
    validParams: ({ a, b }) => [[a.knowledgeBaseId], [b.knowledgeBaseId]],
  },
  {
    method: 'GET',
    path: '/v1/private/knowledge_bases/{0}/items',
    credentials: 'key',
    query: true,
    validParams: ({ a, b }) => [[a.knowledgeBaseId], [b.knowledgeBaseId]],
  },
  {
    method: 'GET',
    path: '/v1/private/knowledge_bases/{0}/items/{1}',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.knowledgeBaseId, a.knowledgeBaseItemId],
      [b.knowledgeBaseId, b.knowledgeBaseItemId],
    ],
  },
  { method: 'GET', path: '/v1/private/knowledge_bases/embedding_model', credentials: 'key' },
  {
    method: 'PUT',
    path: '/v1/private/knowledge_bases/embedding_model',
    credentials: 'key',
    validBody: () => ({ embedding_model: 'text-embedding-3-small' }),
  },
  {
    method: 'DELETE',
    path: '/v1/public/workspaces/{0}/knowledge_bases/{1}',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.id, a.disposableKnowledgeBaseId],
      [b.id, b.disposableKnowledgeBaseId],
    ],
  },
  {
    method: 'GET',
    path: '/v1/private/agents/{0}/knowledge_bases',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.agent.id], [b.agent.id]],
  },
  {
    method: 'PUT',
    path: '/v1/private/agents/{0}/knowledge_bases',
    credentials: 'key',
    validBody: () => ({ knowledge_base_ids: [] }),
    validParams: ({ a, b }) => [[a.agent.id], [b.agent.id]],
  },
  // The OpenAI-compatible surface (decisions, "Beyond the contract"): A's prompt deployment as a model id.
  {
    method: 'POST',
    path: '/openai/v1/chat/completions',
    credentials: 'key',
    lifecycleHeader: 'idempotency-key',
    validBody: ({ a }) => ({
      model: promptModel(a),
      messages: [{ role: 'user', content: 'generated' }],
      inputs: { question: 'generated' },
      metadata: { case: 'generated' },
      user: 'fuzz',
      temperature: 0.5,
      max_tokens: 64,
      stream: false,
    }),
    sized: 'inputs.question',
    servesLarge: true,
  },
  {
    method: 'POST',
    path: '/openai/v1/responses',
    credentials: 'key',
    lifecycleHeader: 'idempotency-key',
    validBody: ({ a }) => ({
      model: promptModel(a),
      input: 'generated',
      instructions: 'Answer in one word',
      inputs: { question: 'generated' },
      metadata: { case: 'generated' },
      user: 'fuzz',
      max_output_tokens: 64,
      stream: false,
    }),
    sized: 'inputs.question',
    servesLarge: true,
  },
  { method: 'GET', path: '/openai/v1/models', credentials: 'key' },
  {
    method: 'GET',
    path: '/openai/v1/models/{0}',
    credentials: 'key',
    // Model ids hold `/`: sent percent-encoded as one path parameter.
    validParams: ({ a, b }) => [[promptModel(a)], [`agent/${a.agent.id}`], [promptModel(b)], [`agent/${b.agent.id}`]],
  },
  // The workspace's MCP servers (the spec's decisions, MCP), tested against the stack's fake MCP server.
  { method: 'GET', path: '/v1/private/mcp_servers', credentials: 'key' },
  { method: 'POST', path: '/v1/private/mcp_servers', credentials: 'key', validBody: mcpServerBody('generated'), sized: 'name' },
  { method: 'POST', path: '/v1/private/mcp_servers/test', credentials: 'key', validBody: mcpServerBody('generated-draft'), sized: 'name' },
  { method: 'GET', path: '/v1/private/mcp_servers/{0}', credentials: 'key', validParams: mcpServerParams },
  {
    method: 'PATCH',
    path: '/v1/private/mcp_servers/{0}',
    credentials: 'key',
    validBody: () => ({ name: 'generated update', timeout_ms: 10_000, headers: { 'X-Only': '********' } }),
    sized: 'name',
    validParams: mcpServerParams,
  },
  { method: 'POST', path: '/v1/private/mcp_servers/{0}/test', credentials: 'key', validParams: mcpServerParams },
  { method: 'POST', path: '/v1/private/mcp_servers/{0}/approve', credentials: 'key', validParams: mcpServerParams },
  {
    method: 'DELETE',
    path: '/v1/private/mcp_servers/{0}',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.disposableMcpServerId], [b.disposableMcpServerId]],
  },
  // Usage governance's administration (the spec's decisions on usage governance). A valid create
  // after the first meets its own scope and period (422), never a 5xx.
  { method: 'GET', path: '/v1/private/budgets', credentials: 'key' },
  {
    method: 'POST',
    path: '/v1/private/budgets',
    credentials: 'key',
    validBody: () => ({ scope: 'user', scope_id: 'generated', period: 'day', limit_micros: 5_000, thresholds: [50, 100] }),
    sized: 'scope_id',
  },
  { method: 'GET', path: '/v1/private/budgets/{0}', credentials: 'key', validParams: ({ a, b }) => [[a.budgetId], [b.budgetId]] },
  {
    method: 'PATCH',
    path: '/v1/private/budgets/{0}',
    credentials: 'key',
    validBody: ({ callbackUrl }) => ({ limit_micros: 2_000_000, thresholds: [90], alert_url: callbackUrl }),
    sized: 'alert_url',
    validParams: ({ a, b }) => [[a.budgetId], [b.budgetId]],
  },
  {
    method: 'DELETE',
    path: '/v1/private/budgets/{0}',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.disposableBudgetId], [b.disposableBudgetId]],
  },
  { method: 'GET', path: '/v1/private/budget_alerts', credentials: 'key', query: true },
  { method: 'GET', path: '/v1/private/rate_limits', credentials: 'key' },
  {
    method: 'POST',
    path: '/v1/private/rate_limits',
    credentials: 'key',
    validBody: () => ({ scope: 'user', scope_id: 'generated', requests_per_minute: 600, tokens_per_minute: 100_000 }),
    sized: 'scope_id',
  },
  { method: 'GET', path: '/v1/private/rate_limits/{0}', credentials: 'key', validParams: ({ a, b }) => [[a.rateLimitId], [b.rateLimitId]] },
  {
    method: 'PATCH',
    path: '/v1/private/rate_limits/{0}',
    credentials: 'key',
    validBody: () => ({ requests_per_minute: null, tokens_per_minute: 50_000 }),
    validParams: ({ a, b }) => [[a.rateLimitId], [b.rateLimitId]],
  },
  {
    method: 'DELETE',
    path: '/v1/private/rate_limits/{0}',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.disposableRateLimitId], [b.disposableRateLimitId]],
  },
  { method: 'GET', path: '/v1/private/credits', credentials: 'key' },
  // The key's own workspace (its id is what the public collections take in their path): the web console reads it at login.
  { method: 'GET', path: '/v1/private/workspace', credentials: 'key' },
  { method: 'GET', path: '/v1/private/spend', credentials: 'key', query: true },
  { method: 'GET', path: '/v1/private/usage/series', credentials: 'key', query: true },
  // The effective model prices a workspace reads (the spec's decisions on usage governance); the operator sets them.
  { method: 'GET', path: '/v1/private/model_prices', credentials: 'key', query: true },
  // The workspace's own provider keys (the spec's decisions on usage governance), tested against the stack's fake provider.
  { method: 'GET', path: '/v1/private/provider_credentials', credentials: 'key' },
  {
    method: 'POST',
    path: '/v1/private/provider_credentials',
    credentials: 'key',
    validBody: () => ({ provider: 'fake', api_key: 'generated-provider-key-0001' }),
  },
  { method: 'DELETE', path: '/v1/private/provider_credentials/{0}', credentials: 'key', validParams: () => [['fake'], ['openai']] },
  // Datasets (the spec's decisions on experiments and releases): bodies and uploads up to 10 MiB.
  // A valid create after the first meets its own name (422); each valid version is one more.
  { method: 'GET', path: '/v1/private/datasets', credentials: 'key' },
  {
    method: 'POST',
    path: '/v1/private/datasets',
    credentials: 'key',
    validBody: () => ({ name: 'generated', description: 'made by the generated tier' }),
    sized: 'description',
    bodyLimitBytes: DATASET_UPLOAD_MAX_BYTES,
  },
  { method: 'GET', path: '/v1/private/datasets/{0}', credentials: 'key', validParams: datasetParams },
  {
    method: 'POST',
    path: '/v1/private/datasets/{0}/versions',
    credentials: 'key',
    validBody: () => ({ rows: [{ inputs: { question: 'generated' }, expected_output: 'answer', metadata: { case: 'generated' } }] }),
    sized: 'rows.0.inputs.question',
    validParams: datasetParams,
    bodyLimitBytes: DATASET_UPLOAD_MAX_BYTES,
  },
  {
    // The upload is read as JSONL whatever its Content-Type: a valid body is one row object.
    method: 'POST',
    path: '/v1/private/datasets/{0}/versions/import?format=jsonl',
    credentials: 'key',
    validBody: () => ({ inputs: { question: 'generated' }, expected_output: 'answer' }),
    sized: 'inputs.question',
    validParams: datasetParams,
    bodyLimitBytes: DATASET_UPLOAD_MAX_BYTES,
  },
  { method: 'GET', path: '/v1/private/datasets/{0}/versions/{1}/rows', credentials: 'key', query: true, validParams: datasetRowsParams },
  {
    method: 'DELETE',
    path: '/v1/private/datasets/{0}',
    credentials: 'key',
    validParams: ({ a, b }) => [[a.disposableDatasetId], [b.disposableDatasetId]],
  },
  // Experiment runs (the spec's decisions on experiments and releases): each valid create runs one cell on the fake.
  { method: 'GET', path: '/v1/private/experiment_runs', credentials: 'key', query: true },
  { method: 'POST', path: '/v1/private/experiment_runs', credentials: 'key', validBody: experimentRunBody },
  { method: 'GET', path: '/v1/private/experiment_runs/{0}', credentials: 'key', validParams: experimentRunParams },
  { method: 'GET', path: '/v1/private/experiment_runs/{0}/cells', credentials: 'key', query: true, validParams: experimentRunParams },
  // The MCP server (the spec's decisions, MCP): a tools/call of A's published prompt variant, as a 2025 client sends it.
  {
    method: 'POST',
    path: '/v1/mcp',
    credentials: 'key',
    validBody: ({ a }) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: promptToolName(a), arguments: { question: 'generated' } },
    }),
    sized: 'params.arguments.question',
    servesLarge: true,
    bodyLimitBytes: 1024 * 1024,
  },
  // Last: its first valid case deletes A's disposable agent, and later ones find it gone.
  {
    method: 'DELETE',
    path: '/v1/public/workspaces/{0}/agents/{1}',
    credentials: 'key',
    validParams: ({ a, b }) => [
      [a.id, a.disposableAgentId],
      [b.id, b.disposableAgentId],
    ],
  },
];

/** A create's (or an unsaved test's) body: an enabled server on the stack's fake, so a valid one is tested and saved. */
function mcpServerBody(id: string): (context: Context) => Record<string, unknown> {
  return ({ mcpUrl }) => ({ id, name: 'generated', url: mcpUrl, headers: { 'X-Generated': 'yes' }, timeout_ms: 5_000, enabled: true });
}

function datasetParams({ a, b }: Context): string[][] {
  return [[a.datasetId], [b.datasetId]];
}

/** A run of A's deployed prompt over A's one-row dataset. */
export function experimentRunBody({ a }: Context): Record<string, unknown> {
  return {
    name: 'generated',
    dataset: a.datasetId,
    dataset_version: 1,
    candidates: [{ name: 'deployed', deployment: a.deployment.deployment, variant: 'default' }],
    evaluators: [{ type: 'contains', value: 'only' }],
  };
}

function experimentRunParams({ a, b }: Context): string[][] {
  return [[a.experimentRunId], [b.experimentRunId]];
}

function datasetRowsParams({ a, b }: Context): string[][] {
  return [
    [a.datasetId, '1'],
    [b.datasetId, '1'],
  ];
}

function mcpServerParams({ a, b }: Context): string[][] {
  return [[a.mcpServerId], [b.mcpServerId]];
}

function knowledgeBaseParams({ a, b }: Context): string[][] {
  return [
    [a.id, a.knowledgeBaseId],
    [b.id, b.knowledgeBaseId],
  ];
}

/** A workspace's prompt deployment's `default` variant as the MCP tool it is published as. */
export function promptToolName(workspace: Workspace): string {
  return defaultMcpToolName('prompt', workspace.deployment.deployment, 'default');
}

/** A workspace's prompt deployment as an OpenAI model id (its `default` variant). */
export function promptModel(workspace: Workspace): string {
  return `prompt/${workspace.deployment.deployment}/default`;
}

export function takesBody(route: RouteCase): boolean {
  return route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
}

function agentBody(): Record<string, unknown> {
  return {
    agent: {
      name: 'generated',
      llm_model: 'fake-generated-chat',
      model_type: 'llm',
      max_token: '256',
      reasoning_effort: 'low',
      max_tool_calls: 2,
    },
  };
}

function agentParams({ a, b }: Context): string[][] {
  return [
    [a.id, a.agent.id],
    [b.id, b.agent.id],
  ];
}

export function invokeBody({ a }: Context): Record<string, unknown> {
  return {
    deployment: a.deployment.deployment,
    variant: 'default',
    inputs: { question: 'generated' },
    metadata: { case: 'generated' },
    user: 'fuzz',
  };
}

/** The Idempotency-Key both workspaces' first runs were started with (each workspace's keys are its own). */
export const SHARED_IDEMPOTENCY_KEY = 'generated-shared-key';
export const firstRunBody = (deployment: string, name: string) => ({
  deployment,
  variant: 'default',
  inputs: { question: `only ${name}` },
});
