import SwaggerParser from '@apidevtools/swagger-parser';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { WorkflowInvokeInputs } from '@waggle/contracts';
import { loadConfig } from '@waggle/platform';
import Ajv2020 from 'ajv/dist/2020';
import { getMetadataStorage } from 'class-validator';
import { AgentInvokeBody } from '../src/agents/agent-invoke.dto';
import { createGatewayApp } from '../src/bootstrap';
import { GatewayEnv } from '../src/config/gateway.env';
import { checkChatCompletionBody } from '../src/openai/chat-completions';
import { checkResponsesBody } from '../src/openai/responses';
import { CHAT_COMPLETION_REQUEST_SCHEMA, RESPONSES_REQUEST_SCHEMA } from '../src/openai/openai-schemas';
import { PromptInvokeBody } from '../src/prompts/prompt-invoke.dto';
import { AgentWebhookBody } from '../src/webhooks/agent-webhook.dto';
import { PromptWebhookBody } from '../src/webhooks/prompt-webhook.dto';

/** Every route the gateway's controllers declare, as "get /v1/public/models". */
function declaredRoutes(app: NestExpressApplication): string[] {
  const routes: string[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
      for (const name of Object.getOwnPropertyNames(metatype.prototype)) {
        const handler = (metatype.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number].toLowerCase();
        // A handler may answer several paths (`@Post(['v1/prompt/invoke', 'v1/invoke'])`).
        for (const handlerPath of [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat()) {
          const path = `/${[base, handlerPath].join('/')}`.replace(/\/+/g, '/').replace(/\/$/, '');
          routes.push(`${method} ${path.replace(/[:*](\w+)/g, '{$1}')}`);
        }
      }
    }
  }
  return routes;
}

/** The properties class-validator validates on a body class (its own and inherited): what the gateway accepts. */
function validatedProperties(target: new () => object): string[] {
  return [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(target, '', true, false)
        .map((rule) => rule.propertyName),
    ),
  ].sort();
}

/** The routes that start a run (decisions D38): documented beside /v1/public/*, each with its body class. */
const RUN_STARTING_ROUTES: Array<[route: string, body: new () => object]> = [
  ['post /v1/invoke', PromptInvokeBody],
  ['post /v1/prompt/invoke', PromptInvokeBody],
  ['post /v1/agent/invoke', AgentInvokeBody],
  ['post /v1/workflow/invoke', WorkflowInvokeInputs],
  ['post /v1/prompt/webhooks/{prompt_endpoint_id}/variants/{variant_id}', PromptWebhookBody],
  ['post /v1/agent/webhooks/{agent_id}', AgentWebhookBody],
];

/**
 * The OpenAI-compatible surface (decisions, "Beyond the contract"): its controllers are kept out of
 * Swagger's scan, its operations documented from the JSON Schemas its bodies are validated with.
 */
const OPENAI_ROUTES = [
  'post /openai/v1/chat/completions',
  'post /openai/v1/responses',
  'get /openai/v1/models',
  'get /openai/v1/models/{id}',
];

/** The workspace's MCP servers (the spec's decisions, MCP): private, and documented all the same. */
const MCP_SERVER_ROUTES = [
  'get /v1/private/mcp_servers',
  'post /v1/private/mcp_servers',
  'post /v1/private/mcp_servers/test',
  'get /v1/private/mcp_servers/{id}',
  'patch /v1/private/mcp_servers/{id}',
  'delete /v1/private/mcp_servers/{id}',
  'post /v1/private/mcp_servers/{id}/test',
  'post /v1/private/mcp_servers/{id}/approve',
];
/** The model prices a workspace reads (the spec's decisions on usage governance): private, read only, documented. */
const MODEL_PRICE_ROUTES = ['get /v1/private/model_prices'];
/** Usage governance's private routes: budgets and their alerts, rate limits, credits (read only), spend, the workspace's provider keys. */
const GOVERNANCE_ROUTES = [
  'get /v1/private/budgets',
  'post /v1/private/budgets',
  'get /v1/private/budgets/{id}',
  'patch /v1/private/budgets/{id}',
  'delete /v1/private/budgets/{id}',
  'get /v1/private/budget_alerts',
  'get /v1/private/rate_limits',
  'post /v1/private/rate_limits',
  'get /v1/private/rate_limits/{id}',
  'patch /v1/private/rate_limits/{id}',
  'delete /v1/private/rate_limits/{id}',
  'get /v1/private/credits',
  'get /v1/private/spend',
  'get /v1/private/provider_credentials',
  'post /v1/private/provider_credentials',
  'delete /v1/private/provider_credentials/{provider}',
  'get /v1/private/prompts/{deployment}/variants/{variant}/history',
  'put /v1/private/prompts/{deployment}/variants/{variant}/labels/{label}',
  'delete /v1/private/prompts/{deployment}/variants/{variant}/labels/{label}',
  'post /v1/private/prompts/{deployment}/variants/{variant}/promote',
  'post /v1/private/prompts/{deployment}/variants/{variant}/rollback',
  'get /v1/private/prompts/{deployment}/variants/{variant}/protection',
  'put /v1/private/prompts/{deployment}/variants/{variant}/protection',
];
/** Datasets (the spec's decisions on experiments and releases, "paths"): private, documented. */
const DATASET_ROUTES = [
  'get /v1/private/datasets',
  'post /v1/private/datasets',
  'get /v1/private/datasets/{id}',
  'delete /v1/private/datasets/{id}',
  'post /v1/private/datasets/{id}/versions',
  'post /v1/private/datasets/{id}/versions/import',
  'get /v1/private/datasets/{id}/versions/{version}/rows',
  'get /v1/private/experiment_runs',
  'post /v1/private/experiment_runs',
  'get /v1/private/experiment_runs/{id}',
  'get /v1/private/experiment_runs/{id}/cells',
];
/** The request ledger's private list, which the console's Runs screen filters: documented with its filters. */
const LEDGER_ROUTES = ['get /v1/private/requests'];
/** The MCP server (the spec's decisions, MCP): one POST route, and GET and DELETE documented as the 405 they answer. */
const MCP_ROUTES = ['post /v1/mcp', 'get /v1/mcp', 'delete /v1/mcp'];

interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
}
interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  schema?: Schema & { pattern?: string; maxLength?: number };
}
interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { headers?: Record<string, { $ref: string }>; content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, Parameter>;
    headers: Record<string, { schema: { enum: string[] } }>;
  };
}

describe('GET /v1/public/openapi.json', () => {
  let app: NestExpressApplication;
  let document: Document;

  /** The operation of "post /v1/agent/invoke". */
  const operationOf = (route: string): Operation => {
    const [method, path] = route.split(' ');
    return document.paths[path][method];
  };
  /** A `$ref` to a component, resolved. */
  const resolve = <T>(ref: string, section: Record<string, T>): T => section[ref.split('/').pop() ?? ''];

  beforeAll(async () => {
    app = await createGatewayApp(loadConfig(GatewayEnv));
    await app.listen(0, '127.0.0.1');
    const response = await fetch(`${await app.getUrl()}/v1/public/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    document = (await response.json()) as typeof document;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is a valid OpenAPI 3.1 document of version v1, served without a key', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('v1');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('describes every implemented /v1/public/* route, every route that starts a run, the OpenAI-compatible routes, the MCP server routes, the usage governance, dataset and ledger private routes and the MCP server, and nothing else', () => {
    const declared = declaredRoutes(app);
    const publicRoutes = declared.filter((route) => route.split(' ')[1].startsWith('/v1/public/'));
    expect(publicRoutes).toContain('get /v1/public/models');
    expect(publicRoutes).toContain('get /v1/public/requests/{id}/events');
    const runStarting = RUN_STARTING_ROUTES.map(([route]) => route);
    for (const route of [
      ...runStarting,
      ...OPENAI_ROUTES,
      ...MCP_SERVER_ROUTES,
      ...MODEL_PRICE_ROUTES,
      ...GOVERNANCE_ROUTES,
      ...DATASET_ROUTES,
      ...LEDGER_ROUTES,
      'post /v1/mcp',
      'all /v1/mcp',
    ])
      expect(declared).toContain(route);
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual(
      [
        ...publicRoutes,
        ...runStarting,
        ...OPENAI_ROUTES,
        ...MCP_SERVER_ROUTES,
        ...MODEL_PRICE_ROUTES,
        ...GOVERNANCE_ROUTES,
        ...DATASET_ROUTES,
        ...LEDGER_ROUTES,
        ...MCP_ROUTES,
      ].sort(),
    );
  });

  it('gives every run-starting route the shared Idempotency-Key parameter, the Idempotent-Replayed header on success and the 409/422 answers', () => {
    const key = document.components.parameters.IdempotencyKey;
    expect(key).toMatchObject({ name: 'Idempotency-Key', in: 'header', schema: { minLength: 1, maxLength: 255 } });
    const keyFormat = new RegExp(key.schema?.pattern ?? '');
    expect(keyFormat.test('a'.repeat(255))).toBe(true);
    expect(keyFormat.test('has space')).toBe(false);
    expect(document.components.headers.IdempotentReplayed.schema.enum).toEqual(['true']);
    for (const [route] of RUN_STARTING_ROUTES) {
      const operation = operationOf(route);
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      const successes = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
      expect(successes.length).toBeGreaterThan(0);
      for (const status of successes)
        expect(operation.responses[status].headers).toEqual({ 'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' } });
      expect(operation.responses['409'].content?.['application/json'].schema).toEqual({
        $ref: '#/components/schemas/RunConflictErrorBodyDto',
      });
      expect(operation.responses['422'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBodyDto' });
    }
    expect(document.components.schemas.RunConflictErrorBodyDto.properties).toHaveProperty('request_id');
  });

  it('documents each run-starting body from the class the gateway validates it with: exactly its validated properties', () => {
    for (const [route, body] of RUN_STARTING_ROUTES) {
      const schema = resolve(operationOf(route).requestBody?.content['application/json'].schema.$ref ?? '', document.components.schemas);
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(validatedProperties(body));
      expect(schema.additionalProperties).toBe(false);
    }
    const promptInvoke = document.components.schemas.PromptInvokeBody;
    const agentInvoke = document.components.schemas.AgentInvokeBody;
    for (const schema of [promptInvoke, agentInvoke]) {
      expect(schema.properties?.background).toEqual({ type: 'boolean' });
      expect(schema.properties?.streaming).toEqual({ type: 'boolean' });
    }
    expect(promptInvoke.required?.sort()).toEqual(['deployment', 'variant']);
    expect(agentInvoke.required?.sort()).toEqual(['agent', 'message']);
    // Nested classes are documented too, from their own validation rules.
    expect(agentInvoke.properties?.async).toMatchObject({ $ref: '#/components/schemas/CallbackSettings' });
    expect(document.components.schemas.CallbackSettings.required).toEqual(['callback_url']);
  });

  it('answers prompt and agent invokes as JSON, as a stream, or 202 in the background', () => {
    for (const route of ['post /v1/prompt/invoke', 'post /v1/agent/invoke']) {
      const { responses } = operationOf(route);
      expect(Object.keys(responses['200'].content ?? {}).sort()).toEqual(['application/json', 'text/event-stream']);
      expect(responses['202'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/AcceptedRunDto' });
    }
    for (const route of ['post /v1/prompt/webhooks/{prompt_endpoint_id}/variants/{variant_id}', 'post /v1/agent/webhooks/{agent_id}'])
      expect(Object.keys(operationOf(route).responses).filter((status) => status.startsWith('2'))).toEqual(['202']);
  });

  it('documents the resumable events route: Last-Event-ID, ?after=, text/event-stream, 404 and 422', () => {
    const events = operationOf('get /v1/public/requests/{id}/events');
    expect(events.parameters).toContainEqual(expect.objectContaining({ name: 'Last-Event-ID', in: 'header' }));
    expect(events.parameters).toContainEqual(
      expect.objectContaining({ name: 'after', in: 'query', schema: expect.objectContaining({ type: 'integer' }) }),
    );
    expect(Object.keys(events.responses['200'].content ?? {})).toEqual(['text/event-stream']);
    for (const status of ['404', '422'])
      expect(events.responses[status].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBodyDto' });
  });

  it("describes the request lookup's trace_id: the trace of the request that started the run, null for older records", () => {
    const schema = operationOf('get /v1/public/requests/{id}').responses['200'].content?.['application/json'].schema;
    const lookup = resolve(schema?.$ref ?? '', document.components.schemas);
    expect(lookup.properties?.trace_id).toMatchObject({ type: 'string', nullable: true, pattern: '^[0-9a-f]{32}$' });
    expect(lookup.required).toContain('trace_id');
  });

  it('describes the model listing with the twelve fields', () => {
    const { components } = document;
    expect(Object.keys(components.schemas.PublicModelDto.properties ?? {}).sort()).toEqual([
      'context_limit',
      'id',
      'is_image_generation',
      'is_json_schema',
      'is_reasoning',
      'is_tool_calling',
      'is_vision',
      'model_type',
      'name',
      'provider',
      'provider_name',
      'slug',
    ]);
    expect(components.schemas.PublicModelDto.required).toHaveLength(12);
  });

  it("describes the agent routes, the agent record's twenty fields and the create body's required three", () => {
    expect(Object.keys(document.paths['/v1/public/workspaces/{workspace_id}/agents']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/v1/public/workspaces/{workspace_id}/agents/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    const { schemas } = document.components;
    const record = [
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
    expect(Object.keys(schemas.AgentDto.properties ?? {})).toEqual(record);
    expect(schemas.AgentDto.required).toEqual(record);
    expect(schemas.CreateAgentFieldsDoc.required).toEqual(['name', 'llm_model', 'model_type']);
    expect(Object.keys(schemas.CreateAgentFieldsDoc.properties ?? {}).sort()).toEqual(
      record.filter((field) => !['id', 'status', 'created_at', 'updated_at'].includes(field)).sort(),
    );
    expect(schemas.UpdateAgentFieldsDoc.required ?? []).toEqual([]);
  });

  it("describes the model prices route: the API key, each listed model's price per million tokens, no way to set one", () => {
    const { schemas } = document.components;
    const operation = operationOf('get /v1/private/model_prices');
    expect(operation.security).toEqual([{ bearer: [] }]);
    expect(operation.responses['200'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ModelPriceListDto' });
    expect(Object.keys(schemas.ModelPriceDto.properties ?? {})).toEqual(['model', 'name', 'pricing']);
    expect(Object.keys(schemas.ModelPricingDto.properties ?? {})).toEqual([
      'input',
      'cached_input',
      'cache_write',
      'output',
      'reasoning',
      'price_version',
    ]);
    expect(Object.keys(document.paths['/v1/private/model_prices'])).toEqual(['get']);
  });

  it('gives the request lookup its cost in integer micro-USD', () => {
    const lookup = document.components.schemas.RequestLookupDto;
    expect(lookup.properties?.cost_micros).toMatchObject({ type: 'integer', nullable: true, minimum: 0 });
    expect(lookup.required).toContain('cost_micros');
  });

  it('describes the MCP server routes: the API key, the server view with masked headers, the test answer and mcp_connection_failed', () => {
    const { schemas } = document.components;
    for (const route of MCP_SERVER_ROUTES) {
      const operation = operationOf(route);
      expect({ route, security: operation.security }).toEqual({ route, security: [{ bearer: [] }] });
      expect(operation.responses['401'].content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBodyDto' });
    }
    expect(Object.keys(schemas.McpServerDto.properties ?? {})).toEqual([
      'id',
      'name',
      'url',
      'headers',
      'timeout_ms',
      'enabled',
      'tools',
      'tools_hash',
      'tools_approved_at',
      'created_at',
      'updated_at',
    ]);
    expect(schemas.McpServerDefinitionDoc.required).toEqual(['id', 'name', 'url']);
    expect(schemas.McpServerChangesDoc.required ?? []).toEqual([]);
    const schemaOf = (route: string, status: string) => operationOf(route).responses[status].content?.['application/json'].schema;
    expect(schemaOf('get /v1/private/mcp_servers', '200')).toEqual({ $ref: '#/components/schemas/McpServerListDto' });
    expect(schemaOf('post /v1/private/mcp_servers/{id}/test', '200')).toEqual({ $ref: '#/components/schemas/McpServerTestResultDto' });
    expect(schemaOf('post /v1/private/mcp_servers/test', '422')).toEqual({ $ref: '#/components/schemas/McpConnectionFailedBodyDto' });
    expect(schemaOf('delete /v1/private/mcp_servers/{id}', '404')).toEqual({ $ref: '#/components/schemas/ErrorBodyDto' });
    const details = resolve(schemas.McpConnectionFailedBodyDto.properties?.details.$ref ?? '', schemas) as Schema & {
      properties: Record<string, Schema & { enum?: string[] }>;
    };
    expect(details.properties.stage.enum).toEqual([
      'url_invalid',
      'address_refused',
      'dns',
      'tls',
      'http_status',
      'unauthorized',
      'protocol',
      'timeout',
    ]);
  });

  it('documents fallbacks and response_format (decisions D41, D42) on the agent bodies and record, as the contract validates them', () => {
    const { schemas } = document.components;
    const format = { oneOf: [{ $ref: '#/components/schemas/ResponseFormatDoc' }, { type: 'null' }] };
    for (const schema of [schemas.CreateAgentFieldsDoc, schemas.UpdateAgentFieldsDoc, schemas.AgentDto]) {
      expect(schema.properties?.fallbacks).toMatchObject({
        type: 'array',
        items: { type: 'string' },
        maxItems: 3,
      });
      expect(schema.properties?.response_format).toMatchObject(format);
    }
    const responseFormat = schemas.ResponseFormatDoc as Schema & {
      properties: Record<string, Schema & { enum?: string[]; pattern?: string }>;
    };
    expect(responseFormat.required?.sort()).toEqual(['schema', 'type']);
    expect(Object.keys(responseFormat.properties).sort()).toEqual(['name', 'schema', 'strict', 'type']);
    expect(responseFormat.properties.type.enum).toEqual(['json_schema']);
    expect(new RegExp(responseFormat.properties.name.pattern ?? '').test('has space')).toBe(false);
  });

  it('documents mcp (the spec\'s decisions, MCP) on the agent bodies and record: at most 20 servers, tools "*" or 1 to 100 names', () => {
    const { schemas } = document.components;
    for (const schema of [schemas.CreateAgentFieldsDoc, schemas.UpdateAgentFieldsDoc, schemas.AgentDto]) {
      expect(schema.properties?.mcp).toMatchObject({
        type: 'array',
        items: { $ref: '#/components/schemas/McpSelectionDoc' },
        maxItems: 20,
        nullable: true,
      });
    }
    const selection = schemas.McpSelectionDoc as Schema & { properties: Record<string, Schema & { pattern?: string; oneOf?: unknown[] }> };
    expect(selection.required?.sort()).toEqual(['server', 'tools']);
    expect(new RegExp(selection.properties.server.pattern ?? '').test('Docs')).toBe(false);
    expect(selection.properties.tools.oneOf).toEqual([
      { type: 'string', enum: ['*'] },
      { type: 'array', items: { type: 'string', minLength: 1, maxLength: 128 }, minItems: 1, maxItems: 100 },
    ]);
  });

  it('documents publish (the spec’s decisions, MCP) on the agent bodies and record: mcp, a tool name of the pattern, a description', () => {
    const { schemas } = document.components;
    const publish = { oneOf: [{ $ref: '#/components/schemas/McpPublishDoc' }, { type: 'null' }] };
    for (const schema of [schemas.CreateAgentFieldsDoc, schemas.UpdateAgentFieldsDoc, schemas.AgentDto])
      expect(schema.properties?.publish).toEqual(publish);
    const doc = schemas.McpPublishDoc as Schema & { properties: Record<string, Schema & { pattern?: string; maxLength?: number }> };
    expect(doc.required).toEqual(['mcp']);
    expect(Object.keys(doc.properties).sort()).toEqual(['description', 'mcp', 'tool_name']);
    const toolName = new RegExp(doc.properties.tool_name.pattern ?? '');
    expect(['agent_front_desk', 'a'.repeat(40)].map((name) => toolName.test(name))).toEqual([true, true]);
    expect(['Agent', 'a-b', '', 'a'.repeat(41)].map((name) => toolName.test(name))).toEqual([false, false, false, false]);
    expect(doc.properties.description.maxLength).toBe(1024);
  });

  it('documents the MCP server: POST with the key, JSON-RPC in and out (JSON or an event stream), refusals as JSON-RPC errors, GET and DELETE 405', () => {
    const post = operationOf('post /v1/mcp');
    expect(post.security).toEqual([{ bearer: [] }]);
    expect(post.requestBody?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/McpJsonRpcMessage' });
    expect(Object.keys(post.responses['200'].content ?? {}).sort()).toEqual(['application/json', 'text/event-stream']);
    const refusals = Object.keys(post.responses).filter((status) => /^[45]/.test(status));
    expect(refusals).toEqual(expect.arrayContaining(['401', '403', '413']));
    for (const status of refusals)
      expect(post.responses[status].content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/McpJsonRpcError' } } });
    expect(post.responses['401'].headers).toHaveProperty('WWW-Authenticate');
    for (const route of ['get /v1/mcp', 'delete /v1/mcp']) {
      expect(Object.keys(operationOf(route).responses)).toEqual(['405']);
      expect(operationOf(route).responses['405'].headers).toHaveProperty('Allow');
    }
    expect(document.components.schemas.McpJsonRpcError.properties?.error.properties?.data).toEqual({
      $ref: '#/components/schemas/ErrorBodyDto',
    });
  });

  it("documents the OpenAI-compatible routes: the API key, OpenAI's error object with x-request-id and x-should-retry on every refusal", () => {
    const { schemas } = document.components;
    for (const route of OPENAI_ROUTES) {
      const operation = operationOf(route);
      expect({ route, security: operation.security }).toEqual({ route, security: [{ bearer: [] }] });
      expect(operation.responses['200'].headers?.['x-request-id']).toEqual({ $ref: '#/components/headers/XRequestId' });
      const refusals = Object.keys(operation.responses).filter((status) => /^[45]/.test(status));
      expect(refusals).toEqual(expect.arrayContaining(['401', '429']));
      if (route !== 'get /openai/v1/models') expect(refusals).toContain('404');
      for (const status of refusals) {
        expect({ route, status, content: operation.responses[status].content }).toEqual({
          route,
          status,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/OpenAiError' } } },
        });
        expect(operation.responses[status].headers).toEqual({
          'x-request-id': { $ref: '#/components/headers/XRequestId' },
          'x-should-retry': { $ref: '#/components/headers/XShouldRetry' },
        });
      }
    }
    const error = schemas.OpenAiError.properties?.error;
    expect(error?.required).toEqual(['message', 'type', 'param', 'code']);
    expect(Object.keys(error?.properties ?? {})).toEqual(['message', 'type', 'param', 'code']);
    const requestId = document.components.headers.XRequestId as unknown as { schema: { pattern: string } };
    expect(new RegExp(requestId.schema.pattern).test('req_0190f5a1b2c37d4e8f90a1b2c3d4e5f6')).toBe(true);
  });

  it('answers chat completions and responses as JSON or an event stream, with the Idempotency-Key of every run route; models as a list or one', () => {
    for (const [route, answer] of [
      ['post /openai/v1/chat/completions', 'OpenAiChatCompletion'],
      ['post /openai/v1/responses', 'OpenAiResponse'],
    ]) {
      const operation = operationOf(route);
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'x-waggle-thread-id', in: 'header' }));
      const content = operation.responses['200'].content ?? {};
      expect(Object.keys(content).sort()).toEqual(['application/json', 'text/event-stream']);
      expect(content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${answer}` });
      expect(operation.responses['200'].headers?.['Idempotent-Replayed']).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
    }
    for (const [route, answer] of [
      ['get /openai/v1/models', 'OpenAiModelList'],
      ['get /openai/v1/models/{id}', 'OpenAiModel'],
    ])
      expect(operationOf(route).responses['200'].content).toEqual({
        'application/json': { schema: { $ref: `#/components/schemas/${answer}` } },
      });
    expect(operationOf('get /openai/v1/models/{id}').parameters).toEqual([
      expect.objectContaining({ name: 'id', in: 'path', required: true }),
    ]);
    const { schemas } = document.components;
    expect(schemas.OpenAiChatCompletion.properties?.object).toEqual({ type: 'string', enum: ['chat.completion'] });
    expect(schemas.OpenAiChatCompletionChunk.properties?.object).toEqual({ type: 'string', enum: ['chat.completion.chunk'] });
    expect(schemas.OpenAiResponse.properties?.object).toEqual({ type: 'string', enum: ['response'] });
    expect(schemas.OpenAiModelList.properties?.data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/OpenAiModel' } });
  });

  it('documents the chat completion and responses bodies by the JSON Schemas the gateway validates them with, nullable as OpenAPI 3.1 says it', () => {
    const ajv = new Ajv2020({ strict: false });
    const bodies: Array<
      [route: string, schema: { required: readonly string[]; properties: object }, check: (body: unknown) => unknown, samples: unknown[]]
    > = [
      [
        'post /openai/v1/chat/completions',
        CHAT_COMPLETION_REQUEST_SCHEMA,
        checkChatCompletionBody,
        [
          { model: 'prompt/a/default', messages: [{ role: 'user', content: 'hi' }] },
          {
            model: 'prompt/a/default',
            messages: [{ role: 'user', content: null }],
            stream: null,
            metadata: null,
            stop: null,
            max_tokens: null,
          },
          { model: 'prompt/a/default', messages: [{ role: 'user', content: 'hi' }], stream: 'yes' },
          { model: 'prompt/a/default', messages: [] },
          { model: 'prompt/a/default', messages: [{ role: 'user', content: 'hi' }], temperature: 3 },
          { model: 'prompt/a/default', messages: [{ role: 'user', content: 'hi' }], metadata: { a: { nested: true } } },
          { model: 'prompt/a/default', messages: [{ role: 'robot', content: 'hi' }] },
          { messages: [{ role: 'user', content: 'hi' }] },
        ],
      ],
      [
        'post /openai/v1/responses',
        RESPONSES_REQUEST_SCHEMA,
        checkResponsesBody,
        [
          { model: 'prompt/a/default', input: 'hi' },
          {
            model: 'prompt/a/default',
            input: 'hi',
            instructions: null,
            text: null,
            tools: [{ type: 'function', name: 'f', parameters: null }],
          },
          { model: 'prompt/a/default', input: [] },
          { model: 'prompt/a/default', input: 'hi', max_output_tokens: 0 },
          { model: 'prompt/a/default', input: 'hi', tools: [{ type: 'function', name: 'has space' }] },
          { input: 'hi' },
        ],
      ],
    ];
    for (const [route, source, check, samples] of bodies) {
      const schema = resolve(operationOf(route).requestBody?.content['application/json'].schema.$ref ?? '', document.components.schemas);
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(Object.keys(source.properties).sort());
      expect(schema.required).toEqual(source.required);
      // OpenAPI 3.1 has no `nullable` (Ajv's, and OpenAPI 3.0's): `null` is among the types.
      expect(JSON.stringify(schema)).not.toContain('"nullable"');
      expect(schema.properties?.stream).toEqual({ type: ['boolean', 'null'] });
      // The document's schema, read as JSON Schema 2020-12, accepts and refuses what the gateway does.
      const documented = ajv.compile(schema);
      const accepts = (sample: unknown) => {
        try {
          check(sample);
          return true;
        } catch {
          return false;
        }
      };
      const verdicts = samples.map((sample) => ({ sample, documented: documented(sample), gateway: accepts(sample) }));
      expect(verdicts).toEqual(samples.map((sample) => ({ sample, documented: accepts(sample), gateway: accepts(sample) })));
      expect(verdicts.some(({ gateway }) => gateway)).toBe(true);
      expect(verdicts.some(({ gateway }) => !gateway)).toBe(true);
    }
  });
});
