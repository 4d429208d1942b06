import type {
  ContentObject,
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency.guard';
import { OPENAI_BASE_PATH } from '../openai/openai-errors';
import { THREAD_HEADER } from '../openai/openai-runs';
import { CHAT_COMPLETION_REQUEST_SCHEMA, RESPONSES_REQUEST_SCHEMA } from '../openai/openai-schemas';
import { API_KEY_SCHEME, IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENT_REPLAYED } from './run-routes';

/** Keywords whose value maps names to schemas (not a schema itself): a property may be named like a keyword. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs']);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON Schema as Ajv validates it, as OpenAPI 3.1 (JSON Schema 2020-12) says it: Ajv's
 * `nullable: true` (OpenAPI 3.0's keyword, unknown to 3.1) becomes `null` among the types,
 * or an `anyOf` with `{type: 'null'}` where the schema names no type.
 */
export function toOpenApi31Schema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApi31Schema);
  if (!isObject(schema)) return schema;
  const { nullable, ...rest } = schema;
  const converted = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [
      key,
      SCHEMA_MAPS.has(key) && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, child]) => [name, toOpenApi31Schema(child)]))
        : toOpenApi31Schema(value),
    ]),
  );
  if (nullable !== true) return converted;
  if (converted.type === undefined) return { anyOf: [converted, { type: 'null' }] };
  const types = [converted.type].flat();
  return {
    ...converted,
    type: types.includes('null') ? types : [...types, 'null'],
    ...(Array.isArray(converted.enum) && !converted.enum.includes(null) && { enum: [...converted.enum, null] }),
  };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullableOf = (schema: SchemaObject | ReferenceObject): SchemaObject => ({ anyOf: [schema, { type: 'null' }] });
const STRING = { type: 'string' } as const;
const INTEGER = { type: 'integer' } as const;
const NULL = { type: 'null' } as const;
const constant = (value: string): SchemaObject => ({ type: 'string', enum: [value] });

const TOOL_CALL: SchemaObject = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: STRING,
    type: constant('function'),
    function: { type: 'object', required: ['name', 'arguments'], properties: { name: STRING, arguments: STRING } },
  },
};

const FINISH_REASON: SchemaObject = { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter'] };

/** The answers' schemas, as chat-completions.ts, responses.ts and models.controller.ts shape them. */
const SCHEMAS: Record<string, SchemaObject> = {
  OpenAiError: {
    type: 'object',
    description: "OpenAI's error object: its SDKs raise it as their exception classes",
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'param', 'code'],
        properties: {
          message: STRING,
          type: {
            type: 'string',
            description:
              '`invalid_request_error`, `authentication_error`, `permission_error`, `insufficient_quota`, `rate_limit_error` or `server_error`',
          },
          param: { ...nullableOf(STRING), description: 'The parameter a refusal names (`messages[2].content`), else null' },
          code: {
            ...nullableOf(STRING),
            description: 'The catalog error_code where one fits; `model_not_found` and `unsupported_endpoint` are this surface’s own',
          },
        },
      },
    },
  },
  OpenAiChatCompletionUsage: {
    type: 'object',
    required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
    properties: {
      prompt_tokens: INTEGER,
      completion_tokens: INTEGER,
      total_tokens: INTEGER,
      prompt_tokens_details: { type: 'object', properties: { cached_tokens: INTEGER } },
      completion_tokens_details: { type: 'object', properties: { reasoning_tokens: INTEGER } },
    },
  },
  OpenAiChatCompletion: {
    type: 'object',
    required: ['id', 'object', 'created', 'model', 'choices', 'usage'],
    properties: {
      id: { type: 'string', description: '`chatcmpl-` and the run’s request id' },
      object: constant('chat.completion'),
      created: INTEGER,
      model: { type: 'string', description: 'The model id the request named' },
      system_fingerprint: NULL,
      choices: {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'message', 'finish_reason'],
          properties: {
            index: INTEGER,
            message: {
              type: 'object',
              required: ['role', 'content'],
              properties: {
                role: constant('assistant'),
                content: nullableOf(STRING),
                refusal: NULL,
                tool_calls: { type: 'array', items: TOOL_CALL },
              },
            },
            logprobs: NULL,
            finish_reason: FINISH_REASON,
          },
        },
      },
      usage: ref('OpenAiChatCompletionUsage'),
    },
  },
  OpenAiChatCompletionChunk: {
    type: 'object',
    description: 'One `data:` line of a streamed chat completion',
    required: ['id', 'object', 'created', 'model', 'choices'],
    properties: {
      id: STRING,
      object: constant('chat.completion.chunk'),
      created: INTEGER,
      model: STRING,
      system_fingerprint: NULL,
      choices: {
        type: 'array',
        items: {
          type: 'object',
          required: ['index', 'delta', 'finish_reason'],
          properties: {
            index: INTEGER,
            delta: {
              type: 'object',
              properties: {
                role: constant('assistant'),
                content: STRING,
                tool_calls: {
                  type: 'array',
                  items: {
                    ...TOOL_CALL,
                    required: ['index', 'id', 'type', 'function'],
                    properties: { ...TOOL_CALL.properties, index: INTEGER },
                  },
                },
              },
            },
            logprobs: NULL,
            finish_reason: nullableOf(FINISH_REASON),
          },
        },
      },
      usage: {
        ...nullableOf(ref('OpenAiChatCompletionUsage')),
        description: 'With `stream_options.include_usage`: null, but on the last chunk',
      },
    },
  },
  OpenAiResponse: {
    type: 'object',
    description: 'Nothing is stored (`store: false`): a response cannot be read back or continued',
    required: ['id', 'object', 'created_at', 'status', 'model', 'output', 'usage', 'error'],
    properties: {
      id: { type: 'string', description: '`resp_` and the run’s request id' },
      object: constant('response'),
      created_at: INTEGER,
      status: { type: 'string', enum: ['in_progress', 'completed', 'incomplete', 'failed'] },
      model: STRING,
      output: {
        type: 'array',
        items: {
          oneOf: [
            {
              type: 'object',
              required: ['type', 'id', 'status', 'role', 'content'],
              properties: {
                type: constant('message'),
                id: STRING,
                status: STRING,
                role: constant('assistant'),
                content: {
                  type: 'array',
                  items: { type: 'object', required: ['type', 'text'], properties: { type: constant('output_text'), text: STRING } },
                },
              },
            },
            {
              type: 'object',
              required: ['type', 'id', 'call_id', 'name', 'arguments', 'status'],
              properties: { type: constant('function_call'), id: STRING, call_id: STRING, name: STRING, arguments: STRING, status: STRING },
            },
          ],
        },
      },
      usage: nullableOf({
        type: 'object',
        required: ['input_tokens', 'output_tokens', 'total_tokens'],
        properties: {
          input_tokens: INTEGER,
          input_tokens_details: { type: 'object', properties: { cached_tokens: INTEGER } },
          output_tokens: INTEGER,
          output_tokens_details: { type: 'object', properties: { reasoning_tokens: INTEGER } },
          total_tokens: INTEGER,
        },
      }),
      error: nullableOf({ type: 'object', required: ['code', 'message'], properties: { code: STRING, message: STRING } }),
      incomplete_details: nullableOf({ type: 'object', properties: { reason: constant('max_output_tokens') } }),
      store: { type: 'boolean', enum: [false] },
    },
  },
  OpenAiModel: {
    type: 'object',
    required: ['id', 'object', 'created', 'owned_by'],
    properties: {
      id: { type: 'string', description: '`prompt/<deployment>/<variant>` or `agent/<agent id>`' },
      object: constant('model'),
      created: { type: 'integer', description: 'Unix seconds' },
      owned_by: constant('waggle'),
    },
  },
  OpenAiModelList: {
    type: 'object',
    required: ['object', 'data'],
    properties: { object: constant('list'), data: { type: 'array', items: ref('OpenAiModel') } },
  },
  OpenAiChatCompletionRequest: toOpenApi31Schema(CHAT_COMPLETION_REQUEST_SCHEMA) as SchemaObject,
  OpenAiResponsesRequest: toOpenApi31Schema(RESPONSES_REQUEST_SCHEMA) as SchemaObject,
};

const X_REQUEST_ID = 'XRequestId';
const X_SHOULD_RETRY = 'XShouldRetry';
const X_WAGGLE_THREAD_ID = 'XWaggleThreadId';

const HEADERS: Record<string, HeaderObject> = {
  [X_REQUEST_ID]: {
    description: 'On every answer of the surface: the run’s request id (GET /v1/public/requests/{id} finds it)',
    schema: { type: 'string', pattern: '^req_[0-9a-f]{32}$' },
  },
  [X_SHOULD_RETRY]: {
    description: 'On every refusal: whether a retry can succeed (OpenAI’s clients read it before their own retry rules)',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
  [X_WAGGLE_THREAD_ID]: {
    description: 'An agent’s answer: the thread the turn was added to',
    schema: { type: 'string' },
  },
};

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const json = (schema: string): ContentObject => ({ 'application/json': { schema: ref(schema) } });

function refusal(description: string): ResponseObject {
  return {
    description,
    headers: { 'x-request-id': header(X_REQUEST_ID), 'x-should-retry': header(X_SHOULD_RETRY) },
    content: json('OpenAiError'),
  };
}

const METERED_REFUSALS: Record<string, ResponseObject> = {
  '401': refusal('Missing, invalid or revoked API key'),
  '429': refusal('The daily API request cap, or a rate limit, was reached (`retry-after` says when to come back)'),
};

const RUN_REFUSALS: Record<string, ResponseObject> = {
  '400': refusal('A parameter is missing, invalid or not supported (`n > 1`, `logprobs`, `audio`…): `param` names it'),
  ...METERED_REFUSALS,
  '404': refusal('`model_not_found`: no such deployment variant or agent in the key’s workspace'),
  '409': refusal('`idempotency_key_in_use`: a request with this Idempotency-Key is still running; `run_cancelled`'),
  '422': refusal('`idempotency_key_reused`: this Idempotency-Key was used with another request'),
  '503': refusal('Overloaded or a dependency unavailable: retry after `retry-after`'),
};

const THREAD_PARAMETER: ParameterObject = {
  name: THREAD_HEADER,
  in: 'header',
  required: false,
  description: 'An agent’s thread (else the body’s `thread_id`, else `metadata.thread_id`)',
  schema: { type: 'string', minLength: 1, maxLength: 256 },
};

/** A run-starting operation: the key, Idempotency-Key, the body from its JSON Schema, whole or streamed answers. */
function runOperation(operationId: string, summary: string, body: string, answer: string, stream: string): OperationObject {
  return {
    operationId,
    tags: ['openai'],
    summary,
    security: [{ [API_KEY_SCHEME]: [] }],
    parameters: [{ $ref: `#/components/parameters/${IDEMPOTENCY_KEY_PARAMETER}` }, THREAD_PARAMETER],
    requestBody: { required: true, content: json(body) },
    responses: {
      '200': {
        description: 'The answer, or (with `stream: true`) its server-sent events',
        headers: {
          'x-request-id': header(X_REQUEST_ID),
          [THREAD_HEADER]: header(X_WAGGLE_THREAD_ID),
          [IDEMPOTENT_REPLAYED_HEADER]: { $ref: `#/components/headers/${IDEMPOTENT_REPLAYED}` },
        },
        content: { ...json(answer), 'text/event-stream': { schema: { type: 'string', description: stream } } },
      },
      ...RUN_REFUSALS,
    },
  };
}

function modelsOperation(operationId: string, summary: string, answer: string, parameters: ParameterObject[] = []): OperationObject {
  return {
    operationId,
    tags: ['openai'],
    summary,
    security: [{ [API_KEY_SCHEME]: [] }],
    parameters,
    responses: {
      '200': { description: summary, headers: { 'x-request-id': header(X_REQUEST_ID) }, content: json(answer) },
      ...METERED_REFUSALS,
      ...(parameters.length > 0 && { '404': refusal('`model_not_found`: no such model in the key’s workspace') }),
    },
  };
}

/** The operations of the OpenAI-compatible surface, by their real paths (its controllers are kept out of Swagger's scan). */
export const OPENAI_PATHS: Record<string, PathItemObject> = {
  [`${OPENAI_BASE_PATH}/chat/completions`]: {
    post: runOperation(
      'openAiCreateChatCompletion',
      'A chat completion from a prompt deployment variant (`prompt/<deployment>/<variant>`, template variables from `inputs`) or an agent (`agent/<id or unique name>`)',
      'OpenAiChatCompletionRequest',
      'OpenAiChatCompletion',
      'Each `data:` line an OpenAiChatCompletionChunk with the one `id` and `created`; the first delta carries the role, the chunk with `finish_reason` ends the choice; with `stream_options.include_usage` a last chunk has `choices: []` and the totals; then `data: [DONE]`. A failure after the first byte is `data: {"error": …}` (OpenAiError), then `[DONE]`.',
    ),
  },
  [`${OPENAI_BASE_PATH}/responses`]: {
    post: runOperation(
      'openAiCreateResponse',
      'A response (OpenAI’s Responses API, `store: false`) from a prompt deployment variant or an agent',
      'OpenAiResponsesRequest',
      'OpenAiResponse',
      'Events named by their `type` (`event:` lines), each `data:` a JSON object with `type` and `sequence_number`: `response.created`, `response.in_progress`, `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`…, `response.output_text.done`, `response.content_part.done`, `response.output_item.done`, then `response.completed` (or `response.incomplete`, `response.failed`) carrying an OpenAiResponse; no `[DONE]`.',
    ),
  },
  [`${OPENAI_BASE_PATH}/models`]: {
    get: modelsOperation(
      'openAiListModels',
      'The deployment variants and active agents of the key’s workspace, as model ids',
      'OpenAiModelList',
    ),
  },
  [`${OPENAI_BASE_PATH}/models/{id}`]: {
    get: modelsOperation('openAiRetrieveModel', 'One model of the key’s workspace', 'OpenAiModel', [
      {
        name: 'id',
        in: 'path',
        required: true,
        description: 'A model id (`prompt/<deployment>/<variant>`, `agent/<id>`): its `/` sent as it is or percent-encoded',
        schema: { type: 'string', minLength: 1 },
      },
    ]),
  },
};

/** Adds the OpenAI-compatible surface (decisions, "Beyond the contract"): after addRunRoutes, whose Idempotency-Key it shares. */
export function addOpenAiRoutes(document: OpenAPIObject): void {
  Object.assign(document.paths, OPENAI_PATHS);
  const components = (document.components ??= {});
  components.schemas = { ...components.schemas, ...SCHEMAS };
  components.headers = { ...components.headers, ...HEADERS };
}
