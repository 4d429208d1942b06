import type {
  AgentRecord,
  AgentWebhookSecretView,
  AppliedDeployment,
  AppliedWorkflowDeployment,
  WebhookSecretView,
} from '@waggle/contracts';
import { ERROR_CATALOG } from '@waggle/errors';
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
import { deliveryIdFor } from '@waggle/webhooks';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every route of the gateway, sent what a new user's mistakes and an attacker's probes
 * would send: arbitrary path parameters, bodies (valid ones with a field swapped for any
 * JSON, NUL characters, nesting thousands of levels deep, not JSON at all), query strings
 * and headers. Whatever comes in, the answer is never a 5xx, every error is in the catalog's
 * shape, and workspace A's key never reads anything of workspace B's.
 *
 * GENERATED_INPUT_RUNS sets the cases per route (default 300); fast-check prints the seed
 * and the smallest failing case when a property fails, and GENERATED_INPUT_SEED replays it.
 * Services add their routes to ROUTES.
 */

const RUNS_PER_ROUTE = Number(process.env.GENERATED_INPUT_RUNS ?? 300);
const SEED = process.env.GENERATED_INPUT_SEED === undefined ? undefined : Number(process.env.GENERATED_INPUT_SEED);

const PROMPTS = (deployment: string) => `
prompts:
  - deployment: ${deployment}
    variants:
      - name: default
        model: fake-generated-chat
        messages:
          - { role: user, content: "{{ question }}" }
`;

/** A workflow file's `workflows:` list (as JSON): one template step over one input. */
const WORKFLOWS = (deployment: string) => [
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

interface Workspace {
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
}

/** How a case authenticates: a workspace key (A's, B's or a broken one), or a webhook secret. */
type Credentials = 'key' | 'webhook' | 'agent-webhook' | 'none';

interface RouteCase {
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
}

interface Context {
  a: Workspace;
  b: Workspace;
  callbackUrl: string;
}

const ROUTES: RouteCase[] = [
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

function knowledgeBaseParams({ a, b }: Context): string[][] {
  return [
    [a.id, a.knowledgeBaseId],
    [b.id, b.knowledgeBaseId],
  ];
}

function takesBody(route: RouteCase): boolean {
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

function invokeBody({ a }: Context): Record<string, unknown> {
  return {
    deployment: a.deployment.deployment,
    variant: 'default',
    inputs: { question: 'generated' },
    metadata: { case: 'generated' },
    user: 'fuzz',
  };
}

const MiB = 1024 * 1024;
/** decisions, payload sizes: bodies around NATS's 1 MiB and around the gateway's 5 MiB limit. */
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

/** Strings that broke, or could break, something on the way to storage. */
/** The Idempotency-Key both workspaces' first runs were started with (each workspace's keys are its own). */
const SHARED_IDEMPOTENCY_KEY = 'generated-shared-key';
const firstRunBody = (deployment: string, name: string) => ({ deployment, variant: 'default', inputs: { question: `only ${name}` } });

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

const nastyString = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '',
    'a\u0000b',
    '\u0000',
    '\ud800',
    '..',
    '../../etc/passwd',
    '%',
    '%00',
    '%zz',
    '🙂',
    ' ',
    'x'.repeat(3000),
    "' OR 1=1 --",
    '{{ 7 * 7 }}',
    'null',
    '[]',
  ),
);

/**
 * JSON nested `levels` deep, as an array or an object chain. Kept as a marker and written
 * out as text when the body is serialized: JSON.stringify itself would overflow on it.
 */
class DeepJson {
  constructor(
    readonly levels: number,
    readonly asObject: boolean,
  ) {}

  toJSON(): string {
    return `\u0001deep:${this.levels}:${this.asObject ? 1 : 0}\u0001`;
  }

  static text(levels: number, asObject: boolean): string {
    return asObject ? `${'{"n":'.repeat(levels)}"leaf"${'}'.repeat(levels)}` : `${'['.repeat(levels)}"leaf"${']'.repeat(levels)}`;
  }
}

function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001deep:(\d+):([01])\\u0001"/g, (_marker, levels: string, asObject: string) =>
    DeepJson.text(Number(levels), asObject === '1'),
  );
}

/** A path or query value as a client would send it (a lone surrogate cannot be percent-encoded, so it goes as U+FFFD). */
function encodeComponent(value: string): string {
  return encodeURIComponent(Buffer.from(value).toString());
}

const deepValue = fc.tuple(fc.integer({ min: 60, max: 6_000 }), fc.boolean()).map(([levels, asObject]) => new DeepJson(levels, asObject));
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 4 }), nastyString, deepValue);

/** A body as sent on the wire: JSON text (usually), or anything else. */
function bodyArbitrary(valid: Record<string, unknown> | undefined): fc.Arbitrary<string> {
  const mutated = valid
    ? fc.oneof(
        // One field swapped for any value, or a new field added.
        fc.tuple(fc.constantFrom(...Object.keys(valid), 'unexpected'), anyJson).map(([field, value]) => ({ ...valid, [field]: value })),
        // One field removed.
        fc.constantFrom(...Object.keys(valid)).map((field) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== field))),
        // A NUL or a deep value inside the nested objects (inputs, metadata…).
        fc.tuple(fc.constantFrom(...Object.keys(valid)), fc.oneof(nastyString, deepValue)).map(([field, value]) => ({
          ...valid,
          [field]:
            typeof valid[field] === 'object' && valid[field] !== null && !Array.isArray(valid[field])
              ? { ...(valid[field] as object), generated: value }
              : value,
        })),
        fc.constant(valid),
      )
    : fc.constant({});
  return fc.oneof(
    { weight: 6, arbitrary: mutated.map(toJsonText) },
    { weight: 2, arbitrary: anyJson.map(toJsonText) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        'not json',
        '[1,2',
        '\u0000',
        '{"a":"\\u0000"}',
        'null',
        '"string"',
        '{"__proto__":{"polluted":true}}',
      ),
    },
  );
}

/**
 * Multipart bodies as clients get them wrong (and right): parts in any field, file names and
 * part types with quotes and line breaks, bodies cut short, boundaries that do not match
 * the header's. Answers the Content-Type with its boundary, and the body.
 */
function multipartArbitrary(): fc.Arbitrary<{ contentType: string; body: Buffer }> {
  const part = fc.record({
    field: fc.oneof({ weight: 3, arbitrary: fc.constant('file') }, { weight: 1, arbitrary: nastyString }),
    filename: fc.option(fc.oneof(fc.constantFrom('notes.txt', 'pixel.png', ''), nastyString), { nil: undefined }),
    type: fc.option(fc.oneof(fc.constantFrom('text/plain', 'image/png', 'application/octet-stream', 'a/b; x="y"'), nastyString), {
      nil: undefined,
    }),
    content: fc.oneof(
      nastyString.map((text) => Buffer.from(text)),
      fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
    ),
  });
  return fc
    .record({
      boundary: fc.constantFrom('gen-boundary', 'x', '----WebKitFormBoundary7MA4YWxkTrZu0gW'),
      declared: fc.constantFrom('same', 'other', 'none', 'not-multipart'),
      parts: fc.array(part, { maxLength: 3 }),
      cut: fc.option(fc.nat({ max: 4096 }), { nil: undefined, freq: 4 }),
    })
    .map(({ boundary, declared, parts, cut }) => {
      const pieces = parts.map((item) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${item.field}"${item.filename === undefined ? '' : `; filename="${item.filename}"`}\r\n${item.type === undefined ? '' : `Content-Type: ${item.type}\r\n`}\r\n`,
          ),
          item.content,
          Buffer.from('\r\n'),
        ]),
      );
      const whole = Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
      const body = cut === undefined ? whole : whole.subarray(0, cut);
      const contentType = {
        same: `multipart/form-data; boundary=${boundary}`,
        other: 'multipart/form-data; boundary=elsewhere',
        none: 'multipart/form-data',
        'not-multipart': 'application/json',
      }[declared];
      return { contentType, body };
    });
}

function queryArbitrary(): fc.Arbitrary<string> {
  const pair = fc.tuple(
    fc.oneof(
      fc.constantFrom(
        'locale',
        'limit',
        'user',
        'status',
        'request_id',
        'metadata_key',
        'metadata_value',
        'from',
        'to',
        'since',
        'key',
        'metadata[a]',
      ),
      nastyString,
    ),
    fc.oneof(nastyString, fc.integer().map(String), fc.constantFrom('es', 'en', '0', '-1', '1e309', '2026-01-01T00:00:00Z', 'NaN')),
  );
  return fc
    .array(pair, { maxLength: 4 })
    .map((pairs) => pairs.map(([key, value]) => `${encodeComponent(key)}=${encodeComponent(value)}`).join('&'));
}

const KNOWN_CODES = new Set(Object.keys(ERROR_CATALOG));

/** The catalog's error shape: `error`, `message`, `error_code` from the catalog and `code` equal to it; the concurrency cap's 429 is `{error}` alone. */
function expectCatalogShape(status: number, text: string, what: string): void {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${what}: ${status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  if (status === 429 && Object.keys(body).length === 1) {
    expect(body).toEqual({ error: expect.any(String) });
    return;
  }
  expect(body).toMatchObject({
    error: expect.any(String),
    message: expect.any(String),
    error_code: expect.any(String),
    code: body.error_code,
  });
  if (!KNOWN_CODES.has(body.error_code as string)) throw new Error(`${what}: error_code ${String(body.error_code)} is not in the catalog`);
}

describe('generated input across the public and private routes', () => {
  const fake = new FakeProviderServer();
  const receiver = new CallbackReceiver();
  const apps: AppProcess[] = [];
  let gateway: string;
  let context: Context;
  /** What only workspace B has: none of it may appear in an answer to workspace A's key. */
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
    };
  }

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    callbackBase = await receiver.start();
    const env = { LOG_LEVEL: 'error', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', CALLBACK_URL_ALLOWLIST: '127.0.0.1' };
    const assetDir = mkdtempSync(join(tmpdir(), 'waggle-generated-assets-'));
    for (const app of ['catalog', 'invocation', 'callback-dispatcher', 'agent', 'knowledge-base', 'asset', 'gateway'] as const)
      apps.push(spawnApp(app, await freePort(), app === 'asset' ? { ...env, ASSET_STORAGE_DIR: assetDir } : env));
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
    context = { a, b, callbackUrl: `${callbackBase}/generated` };
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
      bAsset.id,
      bAsset.sha256,
      'only-generated-b',
    ].filter(Boolean) as string[];
  });

  afterAll(async () => {
    process.stdout.write(`generated input: ${requests} requests across ${ROUTES.length} routes\n`);
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await receiver.stop();
    await fake.stop();
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

  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: no 5xx, errors in the catalog shape, nothing of another workspace',
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
            requests += 1;
            const response = await fetch(url, { method: route.method, headers, body: takesBody(route) ? body : undefined });
            const text = await response.text();
            if (response.status < 300) successes += 1;
            const what = `${route.method} ${path}`;
            if (response.status >= 500) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
            if (response.status >= 400) expectCatalogShape(response.status, text, what);
            if (who === 'a' && response.status < 300) {
              const leaked = secretsOfB.find((secret) => text.includes(secret));
              if (leaked)
                throw new Error(`${what} with workspace A's credentials answered something of workspace B's (${leaked.slice(0, 12)}…)`);
            }
          },
        ),
        { numRuns: RUNS_PER_ROUTE, ...(SEED !== undefined && { seed: SEED }), endOnFailure: false },
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
        requests += 1;
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
      { numRuns: RUNS_PER_ROUTE, ...(SEED !== undefined && { seed: SEED }), endOnFailure: false },
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
      { numRuns: Math.max(20, Math.round(RUNS_PER_ROUTE / 3)), ...(SEED !== undefined && { seed: SEED }), endOnFailure: false },
    );
    // The agent stays runnable for the rest of the tier: its fields back to none.
    await send('PATCH', `/v1/public/workspaces/${context.a.id}/agents/${context.a.agent.id}`, {
      agent: { fallbacks: null, response_format: null },
    });
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
    requests += 1;
    const response = await fetch(`${gateway}${path}`, {
      method: route.method,
      headers: { ...credentialHeaders(route, 'a'), 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    const what = `${route.method} ${path} with ${bytes} bytes`;
    if (bytes > BODY_LIMIT_BYTES) {
      expect({ what, status: response.status }).toEqual({ what, status: 413 });
      expect(JSON.parse(text)).toMatchObject({ error_code: 'validation_error', code: 'validation_error' });
      return;
    }
    if (response.status >= 500) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
    if (route.servesLarge && response.status >= 300)
      throw new Error(`${what} should be served, but answered ${response.status}: ${text.slice(0, 300)}`);
    if (response.status >= 400) expectCatalogShape(response.status, text, what);
  });

  it('kept every app in the process it started with, through the whole tier', async () => {
    for (const app of apps) {
      expect({ app: app.app, exitCode: app.child.exitCode, signal: app.child.signalCode }).toEqual({
        app: app.app,
        exitCode: null,
        signal: null,
      });
      const { started_at } = (await (await fetch(`${app.baseUrl}/health/live`)).json()) as { started_at: string };
      expect({ app: app.app, started_at }).toEqual({ app: app.app, started_at: startedAt.get(app.app) });
    }
  });
});
