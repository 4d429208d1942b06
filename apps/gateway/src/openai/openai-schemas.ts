import { MAX_CONTENT_LENGTH } from '@waggle/contracts';
import { WaggleException, type ErrorDetail } from '@waggle/errors';
import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';

/**
 * The request bodies of the OpenAI-compatible surface as JSON Schemas: one definition that both
 * validates a body (compiled once by Ajv) and documents it in the OpenAPI document. Unknown
 * fields are ignored, as decided; the fields Waggle reads are checked for type and range, and a
 * refusal names the field as OpenAI's `param` (`messages[2].content`).
 */

const nullable = <T extends Record<string, unknown>>(schema: T) => ({ ...schema, nullable: true });

const TEXT = { type: 'string', maxLength: MAX_CONTENT_LENGTH } as const;
const URL_TEXT = { type: 'string', minLength: 1, maxLength: 8 * 1024 * 1024 } as const;

/** A message's content: a string, or parts (text, image URL; an assistant's refusal). */
const CONTENT_PART = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['text', 'image_url', 'refusal'] },
    text: TEXT,
    refusal: TEXT,
    image_url: { type: 'object', required: ['url'], properties: { url: URL_TEXT, detail: { type: 'string' } } },
  },
} as const;

const CHAT_CONTENT = {
  anyOf: [TEXT, { type: 'array', maxItems: 100, items: CONTENT_PART }, { type: 'null' }],
} as const;

const TOOL_CALL = {
  type: 'object',
  required: ['id', 'function'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 256 },
    type: { type: 'string', enum: ['function'] },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 256 }, arguments: TEXT },
    },
  },
} as const;

export const CHAT_MESSAGE_SCHEMA = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: CHAT_CONTENT,
    name: { type: 'string', maxLength: 256 },
    tool_calls: { type: 'array', maxItems: 128, items: TOOL_CALL },
    tool_call_id: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const;

/** OpenAI's function names, which every provider Waggle calls accepts. */
const FUNCTION_NAME = { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' } as const;

const FUNCTION_TOOL = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { type: 'string', enum: ['function'] },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: FUNCTION_NAME,
        description: { type: 'string', maxLength: 16_384 },
        parameters: { type: 'object' },
        strict: nullable({ type: 'boolean' }),
      },
    },
  },
} as const;

const TOOL_CHOICE = {
  anyOf: [
    { type: 'string', enum: ['none', 'auto', 'required'] },
    {
      type: 'object',
      required: ['type', 'function'],
      properties: {
        type: { type: 'string', enum: ['function'] },
        function: { type: 'object', required: ['name'], properties: { name: FUNCTION_NAME } },
      },
    },
  ],
} as const;

const JSON_SCHEMA_FORMAT = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    description: { type: 'string' },
    schema: { type: 'object' },
    strict: nullable({ type: 'boolean' }),
  },
} as const;

const RESPONSE_FORMAT = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
    json_schema: JSON_SCHEMA_FORMAT,
  },
} as const;

/** decisions: metadata follows the contract's flat rule, with at most 16 pairs as OpenAI allows. */
const METADATA = {
  type: 'object',
  maxProperties: 16,
  propertyNames: { minLength: 1, maxLength: 64 },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 512 },
} as const;

const STOP = { anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }, { type: 'null' }] } as const;

/** Shared by both endpoints: the model, the labels and the sampling parameters. */
const COMMON = {
  model: { type: 'string', minLength: 1, maxLength: 300 },
  stream: nullable({ type: 'boolean' }),
  temperature: nullable({ type: 'number', minimum: 0, maximum: 2 }),
  top_p: nullable({ type: 'number', minimum: 0, maximum: 1 }),
  user: { type: 'string', maxLength: 256 },
  safety_identifier: { type: 'string', maxLength: 256 },
  metadata: nullable(METADATA),
  /** Waggle's extension: the prompt template's variables (else taken from metadata). */
  inputs: nullable({ type: 'object' }),
  /** Waggle's extension: an agent's thread (the X-Waggle-Thread-Id header wins). */
  thread_id: nullable({ type: 'string', minLength: 1, maxLength: 256 }),
} as const;

export const CHAT_COMPLETION_REQUEST_SCHEMA = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    ...COMMON,
    messages: { type: 'array', minItems: 1, maxItems: 2_000, items: CHAT_MESSAGE_SCHEMA },
    stream_options: nullable({ type: 'object', properties: { include_usage: { type: 'boolean' } } }),
    max_tokens: nullable({ type: 'integer', minimum: 1, maximum: 10_000_000 }),
    max_completion_tokens: nullable({ type: 'integer', minimum: 1, maximum: 10_000_000 }),
    stop: STOP,
    seed: nullable({ type: 'integer' }),
    n: nullable({ type: 'integer', minimum: 1 }),
    tools: { type: 'array', maxItems: 128, items: FUNCTION_TOOL },
    tool_choice: TOOL_CHOICE,
    response_format: RESPONSE_FORMAT,
  },
} as const;

/** A Responses input item: a message (`type: message`, or a bare `{role, content}`), a function call or its output. */
const RESPONSES_CONTENT_PART = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['input_text', 'output_text', 'input_image', 'refusal'] },
    text: TEXT,
    refusal: TEXT,
    image_url: URL_TEXT,
  },
} as const;

const RESPONSES_INPUT_ITEM = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['message', 'function_call', 'function_call_output'] },
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant'] },
    content: { anyOf: [TEXT, { type: 'array', maxItems: 100, items: RESPONSES_CONTENT_PART }] },
    call_id: { type: 'string', minLength: 1, maxLength: 256 },
    name: { type: 'string', minLength: 1, maxLength: 256 },
    arguments: TEXT,
    output: TEXT,
  },
} as const;

export const RESPONSES_REQUEST_SCHEMA = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    ...COMMON,
    input: { anyOf: [TEXT, { type: 'array', minItems: 1, maxItems: 2_000, items: RESPONSES_INPUT_ITEM }] },
    instructions: nullable(TEXT),
    max_output_tokens: nullable({ type: 'integer', minimum: 1, maximum: 10_000_000 }),
    previous_response_id: nullable({ type: 'string' }),
    tools: {
      type: 'array',
      maxItems: 128,
      items: {
        type: 'object',
        required: ['type', 'name'],
        properties: {
          type: { type: 'string', enum: ['function'] },
          name: FUNCTION_NAME,
          description: nullable({ type: 'string', maxLength: 16_384 }),
          parameters: nullable({ type: 'object' }),
          strict: nullable({ type: 'boolean' }),
        },
      },
    },
    tool_choice: {
      anyOf: [
        { type: 'string', enum: ['none', 'auto', 'required'] },
        { type: 'object', required: ['type', 'name'], properties: { type: { type: 'string', enum: ['function'] }, name: FUNCTION_NAME } },
      ],
    },
    text: nullable({
      type: 'object',
      properties: {
        format: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', enum: ['text', 'json_object', 'json_schema'] },
            name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
            schema: { type: 'object' },
            strict: nullable({ type: 'boolean' }),
          },
        },
      },
    }),
  },
} as const;

const ajv = new Ajv({ allErrors: false, strict: false });

/** A JSON Pointer of Ajv's as OpenAI names a parameter: `/messages/2/content` → `messages[2].content`. */
export function paramOfPointer(pointer: string, missing?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (missing !== undefined) parts.push(missing);
  return parts.map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/** A 400 naming the parameter (OpenAI's `param`) and why. */
export function badParameter(param: string, problem: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { status: 400, ...problem, details: [{ field: param, messages: [problem] }] });
}

/** A 400 for a parameter whose reason is written here (English, as Ajv's are). */
export function invalidParameter(param: string, reason: string): WaggleException {
  return badParameter(param, { detail: 'openai_message_invalid', params: { reason } });
}

function refusalOf(error: ErrorObject | undefined): WaggleException {
  if (!error) return invalidParameter('body', 'the body is invalid');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  const param = paramOfPointer(error.instancePath, missing) || 'body';
  return invalidParameter(param, missing !== undefined ? `${param} is required` : `${param} ${error.message ?? 'is invalid'}`);
}

/** A compiled check of one body schema: the body as its type, or a 400 naming the first field that fails. */
export function bodyCheck<T>(schema: object): (body: unknown) => T {
  const validate = ajv.compile(schema as JSONSchemaType<T>) as ValidateFunction<T>;
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidParameter('body', 'the body must be a JSON object');
    if (!validate(body)) throw refusalOf(validate.errors?.[0]);
    return body;
  };
}
