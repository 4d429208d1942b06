import { getSchemaPath } from '@nestjs/swagger';
import type { OpenAPIObject, OperationObject, ParameterObject, ResponseObject, SchemaObject, SchemasObject } from '@nestjs/swagger';
import { METADATA_LIMITS, WorkflowInvokeInputs } from '@waggle/contracts';
import type { MetadataStorage as TransformMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters';
import { AgentInvokeBody } from '../agents/agent-invoke.dto';
import { ErrorBodyDto, RateLimitErrorBodyDto } from '../errors/error-body.dto';
import { IDEMPOTENCY_KEY_FORMAT, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency.guard';
import { PromptInvokeBody } from '../prompts/prompt-invoke.dto';
import { AgentWebhookBody } from '../webhooks/agent-webhook.dto';
import { PromptWebhookBody } from '../webhooks/prompt-webhook.dto';
import { WEBHOOK_SECRET_HEADER } from '../webhooks/webhook-secret.guard';
import {
  AcceptedRunDto,
  AgentInvokeResponseDto,
  PromptInvokeResponseDto,
  RunConflictErrorBodyDto,
  WorkflowInvokeResponseDto,
} from './run-answers.dto';

/** class-transformer's own storage (where `@Type()` lives); its path has no typings. */
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformMetadataStorage };

/** The security schemes the run-starting routes use, as `buildPublicOpenApiDocument` declares them. */
export const API_KEY_SCHEME = 'bearer';
export const WEBHOOK_SECRET_SCHEME = 'webhook_secret';

/** The response DTOs the operations below reference: registered as extra models of the document. */
export const RUN_ROUTE_MODELS = [
  ErrorBodyDto,
  RateLimitErrorBodyDto,
  RunConflictErrorBodyDto,
  AcceptedRunDto,
  PromptInvokeResponseDto,
  AgentInvokeResponseDto,
  WorkflowInvokeResponseDto,
];

type BodyClass = new () => object;

/** A route that starts a run (decisions D38): its body is validated with `body`, the class the document's schema is made from. */
interface RunRoute {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  body: BodyClass;
  /** Webhook triggers are authenticated by their owner's secret, not metered; the rest by API key. */
  auth: 'api_key' | 'webhook_secret';
  pathParameters?: string[];
  /** The success answers, without the Idempotent-Replayed header (added to each). */
  answers: Record<string, ResponseObject>;
}

const json = (type: new () => object): ResponseObject['content'] => ({ 'application/json': { schema: { $ref: getSchemaPath(type) } } });

const SSE: ResponseObject['content'] = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description: 'Server-sent events, each with an `id:` line (its sequence number from 1), ending with `data: [DONE]`',
    },
  },
};

const ACCEPTED: ResponseObject = { description: 'Accepted: the run goes on without the caller', content: json(AcceptedRunDto) };

/** Prompt and agent invokes: JSON, a stream (`streaming`), or 202 at once (`background` without streaming). */
function invokeAnswers(answer: new () => object): Record<string, ResponseObject> {
  return {
    '200': {
      description: 'The answer as JSON, or (with `streaming: true`) a stream of server-sent events',
      content: { ...json(answer), ...SSE },
    },
    '202': {
      ...ACCEPTED,
      description: 'With `background: true` and no streaming: accepted, read it later at GET /v1/public/requests/{id}',
    },
  };
}

const PROMPT_INVOKE = {
  tag: 'prompts',
  summary: 'Run a prompt deployment variant',
  body: PromptInvokeBody,
  auth: 'api_key',
  answers: invokeAnswers(PromptInvokeResponseDto),
} as const;

/** Every route that starts a run, as the gateway declares it (the OpenAPI integration spec compares). */
export const RUN_ROUTES: RunRoute[] = [
  { ...PROMPT_INVOKE, path: '/v1/prompt/invoke', operationId: 'invokePrompt' },
  { ...PROMPT_INVOKE, path: '/v1/invoke', operationId: 'invoke', summary: 'Run a prompt deployment variant (alias of /v1/prompt/invoke)' },
  {
    path: '/v1/agent/invoke',
    operationId: 'invokeAgent',
    tag: 'agents',
    summary: 'Send a message to an agent',
    body: AgentInvokeBody,
    auth: 'api_key',
    answers: invokeAnswers(AgentInvokeResponseDto),
  },
  {
    path: '/v1/workflow/invoke',
    operationId: 'invokeWorkflow',
    tag: 'workflows',
    summary: 'Run a workflow deployment variant, sync or async (`async.enabled`, answered at `async.callback_url`)',
    body: WorkflowInvokeInputs,
    auth: 'api_key',
    answers: {
      '200': {
        description: 'The output (sync), or the accepted run and its callback secret (async)',
        content: json(WorkflowInvokeResponseDto),
      },
    },
  },
  {
    path: '/v1/prompt/webhooks/{prompt_endpoint_id}/variants/{variant_id}',
    operationId: 'triggerPromptWebhook',
    tag: 'webhooks',
    summary: 'Run a prompt deployment variant by webhook; the result goes to `async.callback_url`',
    body: PromptWebhookBody,
    auth: 'webhook_secret',
    pathParameters: ['prompt_endpoint_id', 'variant_id'],
    answers: { '202': ACCEPTED },
  },
  {
    path: '/v1/agent/webhooks/{agent_id}',
    operationId: 'triggerAgentWebhook',
    tag: 'webhooks',
    summary: 'Send a message to an agent by webhook; the result goes to `async.callback_url`',
    body: AgentWebhookBody,
    auth: 'webhook_secret',
    pathParameters: ['agent_id'],
    answers: { '202': ACCEPTED },
  },
];

/** `components.parameters` / `components.headers` entries every run-starting operation refers to. */
export const IDEMPOTENCY_KEY_PARAMETER = 'IdempotencyKey';
export const IDEMPOTENT_REPLAYED = 'IdempotentReplayed';

const SCHEMA_PREFIX = '#/components/schemas/';

/** The request id a 409 carries is the run holding the key (or, on a sync invoke, the run cancelled). */
function errorAnswers(route: RunRoute): Record<string, ResponseObject> {
  const error = (description: string, type: new () => object = ErrorBodyDto): ResponseObject => ({ description, content: json(type) });
  return {
    '401': error(route.auth === 'api_key' ? 'Missing, invalid or revoked API key' : 'Missing or wrong webhook secret'),
    ...(route.auth === 'webhook_secret' && { '404': error('No such deployment or variant (an unknown agent answers 422)') }),
    '409': error(
      route.auth === 'api_key'
        ? '`idempotency_key_in_use`: a request with this Idempotency-Key is still running; or `run_cancelled`: the run was cancelled while the caller waited'
        : '`idempotency_key_in_use`: a request with this Idempotency-Key is still running',
      RunConflictErrorBodyDto,
    ),
    '422': error(
      '`idempotency_key_reused`: this Idempotency-Key was used with another request; `validation_error`: the body, or the Idempotency-Key itself, is not valid',
    ),
    ...(route.auth === 'api_key' && { '429': error('Daily API request cap reached', RateLimitErrorBodyDto) }),
  };
}

function operation(route: RunRoute): OperationObject {
  const replayed = { [IDEMPOTENT_REPLAYED_HEADER]: { $ref: `#/components/headers/${IDEMPOTENT_REPLAYED}` } };
  const pathParameters: ParameterObject[] = (route.pathParameters ?? []).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  }));
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    security: [{ [route.auth === 'api_key' ? API_KEY_SCHEME : WEBHOOK_SECRET_SCHEME]: [] }],
    parameters: [...pathParameters, { $ref: `#/components/parameters/${IDEMPOTENCY_KEY_PARAMETER}` }],
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: `${SCHEMA_PREFIX}${route.body.name}` } } } },
    responses: {
      ...Object.fromEntries(Object.entries(route.answers).map(([status, answer]) => [status, { ...answer, headers: replayed }])),
      ...errorAnswers(route),
    },
  };
}

/**
 * Schemas for what the contracts' custom validators accept (class-validator-jsonschema knows
 * only class-validator's own); any other custom validator is described as any value rather
 * than guessed.
 */
const CUSTOM_VALIDATOR_SCHEMAS: ISchemaConverters = {
  isFlatMetadata: {
    type: 'object',
    maxProperties: METADATA_LIMITS.keys,
    propertyNames: { minLength: 1, maxLength: METADATA_LIMITS.keyLength },
    additionalProperties: {
      anyOf: [{ type: 'string', maxLength: METADATA_LIMITS.stringValueLength }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
    },
    description: 'Flat: string keys, scalar values',
    // JSON Schema 2020-12 (OpenAPI 3.1); the library's types are OpenAPI 3.0's, which lack propertyNames.
  } as ISchemaConverters[string],
  isAttachmentList: {
    type: 'array',
    items: {
      anyOf: [
        { type: 'string', maxLength: 4096 },
        {
          type: 'object',
          properties: { file_url: { type: 'string', maxLength: 4096 } },
          required: ['file_url'],
          additionalProperties: false,
        },
      ],
    },
    description: 'URLs, as strings or `{file_url}` objects',
  },
  [ValidationTypes.CUSTOM_VALIDATION]: {},
};

/**
 * JSON schemas of the body classes and the classes they nest, made from the class-validator
 * metadata the gateway validates with (class-validator-jsonschema), so a field added to a DTO
 * is documented by itself. Unknown fields are refused (forbidNonWhitelisted), hence
 * `additionalProperties: false`.
 */
export function bodySchemas(bodies: BodyClass[]): SchemasObject {
  const schemas: SchemasObject = {};
  const pending = new Map<string, BodyClass>(bodies.map((body) => [body.name, body]));
  const nested: ISchemaConverters = {
    [ValidationTypes.NESTED_VALIDATION]: (meta: ValidationMetadata) => {
      const child = defaultMetadataStorage.findTypeMetadata(meta.target as BodyClass, meta.propertyName)?.typeFunction() as
        BodyClass | undefined;
      if (!child) return { type: 'object' };
      if (!(child.name in schemas)) pending.set(child.name, child);
      return { $ref: `${SCHEMA_PREFIX}${child.name}` };
    },
  };
  for (const [name, target] of pending) {
    pending.delete(name);
    const schema = targetConstructorToSchema(target, {
      additionalConverters: { ...CUSTOM_VALIDATOR_SCHEMAS, ...nested },
      classTransformerMetadataStorage: defaultMetadataStorage,
      refPointerPrefix: SCHEMA_PREFIX,
    });
    schemas[name] = { ...(schema as SchemaObject), additionalProperties: false };
  }
  return schemas;
}

/** Adds the run-starting routes, their shared Idempotency-Key parameter and Idempotent-Replayed header, and their bodies' schemas. */
export function addRunRoutes(document: OpenAPIObject): void {
  for (const route of RUN_ROUTES) document.paths[route.path] = { post: operation(route) };
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, ...bodySchemas([...new Set(RUN_ROUTES.map((route) => route.body))]) };
  components.parameters = {
    ...components.parameters,
    [IDEMPOTENCY_KEY_PARAMETER]: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes a retry safe: a repeat with the same body within 24 h replays the first answer (`Idempotent-Replayed: true`) and starts nothing. Use a new UUID per operation.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_FORMAT.source },
    },
  };
  components.headers = {
    ...components.headers,
    [IDEMPOTENT_REPLAYED]: {
      description: '`true` when this is the kept answer of an earlier request with the same Idempotency-Key',
      schema: { type: 'string', enum: ['true'] },
    },
  };
  components.securitySchemes = {
    ...components.securitySchemes,
    [WEBHOOK_SECRET_SCHEME]: {
      type: 'apiKey',
      in: 'header',
      name: WEBHOOK_SECRET_HEADER,
      description: 'The webhook secret of the deployment or agent (or `?secret=` for callers that cannot set headers)',
    },
  };
}
