type Json = Record<string, unknown>;

/**
 * How a request asked for a structured (JSON) answer: OpenAI's `response_format` json_schema
 * or json_object, Anthropic's forced `json` tool (the AI SDK's `structuredOutputMode:
 * 'jsonTool'`), or Anthropic's native `output_format` / `output_config.format`.
 */
export type FakeStructuredMode = 'json_schema' | 'json_object' | 'json_tool' | 'output_format';

/** What the fake read of a structured request: the mode, and the schema and strict flag when it sent them. */
export interface FakeStructuredRequest {
  mode: FakeStructuredMode;
  schema?: unknown;
  strict?: boolean;
}

/** Schemas nested deeper than this (a required property that refers back to its parent) end in null. */
const MAX_DEPTH = 32;

/** Strings of the formats a schema library checks, so a generated instance passes its validation. */
const FORMAT_EXAMPLES: Record<string, string> = {
  email: 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A local `$ref` (`#/$defs/x`, `#/definitions/x`) resolved against the root schema. */
function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return undefined;
  return ref
    .slice(1)
    .split('/')
    .filter((segment) => segment.length > 0)
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, segment) => (isObject(node) ? node[segment] : undefined), root);
}

/** The schema's type: the first non-null one of a type list; an object when it only names properties. */
function typeOf(schema: Json): string | undefined {
  const type = Array.isArray(schema.type) ? (schema.type.find((candidate) => candidate !== 'null') ?? schema.type[0]) : schema.type;
  if (typeof type === 'string') return type;
  if (isObject(schema.properties) || Array.isArray(schema.required)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function instanceOf(schema: unknown, root: unknown, depth: number): unknown {
  if (!isObject(schema) || depth > MAX_DEPTH) return null;
  if (typeof schema.$ref === 'string') return instanceOf(resolveRef(schema.$ref, root), root, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const alternatives = [schema.anyOf, schema.oneOf, schema.allOf].find(Array.isArray) as unknown[] | undefined;
  if (alternatives && alternatives.length > 0) {
    const chosen = alternatives.find((alternative) => !isObject(alternative) || alternative.type !== 'null') ?? alternatives[0];
    return instanceOf(chosen, root, depth + 1);
  }
  const type = typeOf(schema);
  switch (type) {
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
      return Object.fromEntries(required.map((name) => [name, instanceOf(properties[name] ?? {}, root, depth + 1)]));
    }
    case 'string': {
      const example = (typeof schema.format === 'string' && FORMAT_EXAMPLES[schema.format]) || 'example';
      const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
      const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
      return example.padEnd(minLength, 'x').slice(0, maxLength);
    }
    case 'integer':
    case 'number': {
      const lowest =
        typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 0;
      return type === 'integer' ? Math.ceil(lowest) : lowest;
    }
    case 'boolean':
      return true;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: count }, (_, index) =>
        instanceOf(Array.isArray(schema.items) ? schema.items[index] : (schema.items ?? {}), root, depth + 1),
      );
    }
    default:
      return null;
  }
}

/**
 * The smallest instance of a JSON schema the fake answers as a valid structured output:
 * each required property of an object, the first `const`/`enum` value, `"example"` (padded
 * to `minLength`), the `minimum` or 0, true, `minItems` items, null. No schema: `{}`.
 */
export function minimalInstance(schema: unknown): unknown {
  return schema === undefined ? {} : instanceOf(schema, schema, 0);
}

/**
 * An answer that fails the schema: the valid one without its first required property; when
 * the schema requires none, a string for an object schema and an object for any other.
 */
export function invalidInstance(schema: unknown, valid: unknown): unknown {
  const root = isObject(schema) && typeof schema.$ref === 'string' ? resolveRef(schema.$ref, schema) : schema;
  const required = isObject(root) && Array.isArray(root.required) ? root.required : [];
  const first = required[0];
  if (typeof first === 'string' && isObject(valid) && first in valid) {
    const { [first]: _removed, ...rest } = valid;
    return rest;
  }
  return isObject(root) && typeOf(root) === 'object' ? 'not an object' : { unexpected: true };
}
