import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  registerDecorator,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { errorMessage, type ErrorDetail } from '@waggle/errors';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Re2Patterns } from './re2-patterns';

/** Decisions: a response format's schema is at most 64 KiB (its JSON). */
export const RESPONSE_SCHEMA_MAX_BYTES = 64 * 1024;
/** Decisions: up to 3 fallback models after the first. */
export const MAX_FALLBACKS = 3;
/** The names OpenAI accepts for a json_schema response format, which the other providers accept too. */
export const RESPONSE_FORMAT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** `response_format` of a prompt variant, an agent and a workflow `prompt` step (decisions D42). */
export interface ResponseFormat {
  type: 'json_schema';
  name?: string;
  /** A JSON Schema, draft 2020-12. */
  schema: Record<string, unknown>;
  /** Ask the provider to hold the answer to the schema exactly (OpenAI strict mode). Waggle validates either way. */
  strict?: boolean;
}

/** One way an answer fails its schema: where (a JSON Pointer into the answer, `` for the whole) and why. */
export interface SchemaViolation {
  path: string;
  message: string;
}

const AJV_OPTIONS = {
  allErrors: true,
  // Providers' schemas carry keywords Ajv does not know (OpenAI's `strict` habits, vendor `x-` keys).
  strict: false,
} as const;

/**
 * Checks schemas against the draft 2020-12 meta-schema, which it compiles once. It never compiles
 * a workspace's schema, so it holds none of their patterns; the meta-schema's own two fixed
 * patterns match in linear time in a RegExp.
 */
const metaSchemas = addFormats(new Ajv2020(AJV_OPTIONS));

/** A response format's compiled validator and the RE2 patterns it matches with. */
interface CompiledSchema {
  validate: ValidateFunction;
  patterns: Re2Patterns;
}

/**
 * Compiled validators by the SHA-256 of the schema's JSON; bounded, least recently used dropped
 * first, freeing its patterns.
 */
const compiled = new LRUCache<string, CompiledSchema>({ max: 256, dispose: ({ patterns }) => patterns.free() });

function schemaJson(schema: unknown): string {
  return JSON.stringify(schema) ?? '';
}

/**
 * Each schema compiles in an Ajv of its own: a shared Ajv keeps every pattern it ever compiled
 * (deduplicated across schemas by their text), so none could be freed with the validator that
 * dropped it. Validating against the meta-schema first is what the shared one did; Ajv's own
 * check would compile the meta-schema again for every new Ajv.
 */
function compileSchema(schema: Record<string, unknown>): CompiledSchema {
  // A schema's `$id` names nothing Waggle resolves: the schema is compiled without it.
  const { $id: _ignored, ...anonymous } = schema;
  metaSchemas.validateSchema(anonymous, true);
  const patterns = new Re2Patterns();
  try {
    const ajv = addFormats(new Ajv2020({ ...AJV_OPTIONS, validateSchema: false, code: { regExp: patterns.engine } }));
    return { validate: ajv.compile(anonymous), patterns };
  } catch (error) {
    patterns.free();
    throw error;
  }
}

/**
 * The validator of a response format's schema, compiled once per schema. Used at once: it stops
 * working when later schemas push it out of the cache. Throws Ajv's error for a schema that does
 * not compile; responseSchemaProblem says why in words.
 */
function responseSchemaValidator(schema: Record<string, unknown>): ValidateFunction {
  const key = createHash('sha256').update(schemaJson(schema)).digest('base64url');
  let entry = compiled.get(key);
  if (!entry) {
    entry = compileSchema(schema);
    compiled.set(key, entry);
  }
  return entry.validate;
}

/** Why a value cannot be a response format's schema (a message id; Ajv's reason in English), or undefined when it can. */
export function responseSchemaProblem(schema: unknown): ErrorDetail | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { detail: 'response_schema_not_object' };
  if (Buffer.byteLength(schemaJson(schema)) > RESPONSE_SCHEMA_MAX_BYTES)
    return { detail: 'response_schema_too_large', params: { kib: RESPONSE_SCHEMA_MAX_BYTES / 1024 } };
  try {
    responseSchemaValidator(schema as Record<string, unknown>);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/\s+/g, ' ').slice(0, 300) : 'it does not compile';
    return { detail: 'response_schema_invalid', params: { reason } };
  }
}

function violationOf(error: ErrorObject): SchemaViolation {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  const path = missing !== undefined ? `${error.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}` : error.instancePath;
  return { path, message: error.message ?? error.keyword };
}

/** At most this many violations are reported: enough to repair from, small enough to send back. */
export const MAX_REPORTED_VIOLATIONS = 20;

/**
 * How a model's answer fails the schema: not JSON at all, or each violation Ajv found. An
 * empty list means the answer is valid.
 */
export function answerViolations(format: ResponseFormat, answer: string): SchemaViolation[] {
  let value: unknown;
  try {
    value = JSON.parse(answer) as unknown;
  } catch {
    return [{ path: '', message: 'is not JSON' }];
  }
  const validate = responseSchemaValidator(format.schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, MAX_REPORTED_VIOLATIONS).map(violationOf);
}

/** A JSON Schema (draft 2020-12) of at most 64 KiB that compiles. */
export function IsResponseSchema(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isResponseSchema',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => responseSchemaProblem(value) === undefined,
        defaultMessage: (args) => errorMessage(responseSchemaProblem(args?.value) ?? { detail: 'response_schema_not_object' }, 'en'),
      },
    });
}

export class ResponseFormatDto implements ResponseFormat {
  @IsIn(['json_schema'])
  type!: 'json_schema';

  @IsOptional()
  @IsString()
  @Matches(RESPONSE_FORMAT_NAME)
  name?: string;

  @IsResponseSchema()
  schema!: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  strict?: boolean;
}

/** `fallbacks`: up to 3 catalog model ids, tried in order when the model before is unavailable (D41). */
export function FallbacksField(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    IsArray()(target, propertyName);
    ArrayMaxSize(MAX_FALLBACKS)(target, propertyName);
    IsString({ each: true })(target, propertyName);
    Length(1, 200, { each: true })(target, propertyName);
  };
}

/** `response_format`, validated as a nested ResponseFormatDto. */
export function ResponseFormatField(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    ValidateNested()(target, propertyName);
    Type(() => ResponseFormatDto)(target, propertyName);
  };
}
