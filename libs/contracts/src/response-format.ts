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
import { RE2 } from 're2-wasm';

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

/**
 * RE2 instead of JavaScript's backtracking RegExp for the schema's `pattern` and
 * `patternProperties`: a schema is a workspace's input, and a pattern such as `^(a+)+$`
 * must not be able to hold a shared service's event loop (RE2 matches in linear time).
 */
const re2Engine = Object.assign((pattern: string, flags: string) => new RE2(pattern, flags.includes('u') ? flags : `${flags}u`), {
  // Ajv reads `code` only when it writes standalone validator code, which Waggle does not.
  code: 're2-wasm',
});

/** One Ajv for every schema: compiled validators are cached below by the schema's hash. */
const ajv = addFormats(
  new Ajv2020({
    allErrors: true,
    // Providers' schemas carry keywords Ajv does not know (OpenAI's `strict` habits, vendor `x-` keys).
    strict: false,
    code: { regExp: re2Engine },
  }),
);

/** Compiled validators by the SHA-256 of the schema's JSON; bounded, oldest dropped first. */
const compiled = new Map<string, ValidateFunction>();
const COMPILED_KEPT = 256;

function schemaJson(schema: unknown): string {
  return JSON.stringify(schema) ?? '';
}

/**
 * The validator of a response format's schema, compiled once per schema. Throws Ajv's error
 * for a schema that does not compile; responseSchemaProblem says why in words.
 */
export function responseSchemaValidator(schema: Record<string, unknown>): ValidateFunction {
  const json = schemaJson(schema);
  const key = createHash('sha256').update(json).digest('base64url');
  let validate = compiled.get(key);
  if (validate) {
    compiled.delete(key);
    compiled.set(key, validate);
    return validate;
  }
  // A schema's own `$id` would be registered in the shared Ajv and clash with a later one.
  const { $id: _ignored, ...anonymous } = schema;
  validate = ajv.compile(anonymous);
  compiled.set(key, validate);
  if (compiled.size > COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
  return validate;
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
