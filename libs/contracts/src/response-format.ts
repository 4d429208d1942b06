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
 * `patternProperties` (and the experiments' `regex` evaluator): a workspace's pattern such as
 * `^(a+)+$` must not be able to hold a shared service's event loop (RE2 matches in linear time).
 */
function re2(pattern: string, flags = ''): RE2 {
  return new RE2(pattern, flags.includes('u') ? flags : `${flags}u`);
}

const re2Engine = Object.assign(re2, {
  // Ajv reads `code` only when it writes standalone validator code, which Waggle does not.
  code: 're2-wasm',
});

/**
 * re2-wasm keeps each compiled pattern in a fixed 16 MiB WebAssembly heap that the garbage
 * collector never frees: a process compiling patterns without freeing them ends with every
 * later pattern (the response formats' too) failing. Ajv keeps its compiled ones; a pattern
 * used once is freed here.
 */
function free(compiled: RE2): void {
  (compiled as unknown as { wrapper?: { delete?: () => void } }).wrapper?.delete?.();
}

/**
 * Patterns that did not compile, with why. re2-wasm cannot free a pattern whose compilation
 * failed, so a pattern refused once is refused from here afterwards (bounded, oldest dropped).
 */
const refusedPatterns = new Map<string, string>();
const REFUSED_PATTERNS_KEPT = 1_000;

/** Why a pattern does not compile in RE2 (its parser's words, in English), or undefined when it does. */
export function re2PatternProblem(pattern: string, flags = ''): string | undefined {
  const outcome = withRe2Pattern(pattern, flags, () => undefined);
  return outcome.ok ? undefined : outcome.problem;
}

/** What `use` answered, or why the pattern does not compile (the parser's words). */
export type Re2Outcome<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `use` with the pattern compiled in RE2, which is freed afterwards. */
export function withRe2Pattern<T>(pattern: string, flags: string, use: (compiled: RE2) => T): Re2Outcome<T> {
  const key = `${flags}/${pattern}`;
  const refused = refusedPatterns.get(key);
  if (refused !== undefined) return { ok: false, problem: refused };
  let compiled: RE2;
  try {
    compiled = re2(pattern, flags);
  } catch (error) {
    const problem = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').slice(0, 300);
    refusedPatterns.set(key, problem);
    if (refusedPatterns.size > REFUSED_PATTERNS_KEPT) refusedPatterns.delete(refusedPatterns.keys().next().value as string);
    return { ok: false, problem };
  }
  try {
    return { ok: true, value: use(compiled) };
  } finally {
    free(compiled);
  }
}

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
