/**
 * What the AI SDK's OpenAI-compatible provider accepts of a chat-completions answer and of a
 * stream's chunk (its zod schemas, as plain checks): fields it reads must have their types or
 * be null or absent; anything else is allowed.
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const nullish = (value: unknown): value is null | undefined => value === null || value === undefined;
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => nullish(value) || check(value);
const isString = (value: unknown): boolean => typeof value === 'string';
const isNumber = (value: unknown): boolean => typeof value === 'number' && !Number.isNaN(value);

function isContent(value: unknown): boolean {
  return isString(value) || (Array.isArray(value) && value.every((part) => isObject(part) && isString(part.type)));
}

function isUsage(value: unknown): boolean {
  if (!isObject(value)) return false;
  const prompt = value.prompt_tokens_details;
  const completion = value.completion_tokens_details;
  return (
    optional(value.prompt_tokens, isNumber) &&
    optional(value.completion_tokens, isNumber) &&
    optional(value.total_tokens, isNumber) &&
    optional(prompt, (details) => isObject(details) && optional(details.cached_tokens, isNumber)) &&
    optional(
      completion,
      (details) =>
        isObject(details) &&
        optional(details.reasoning_tokens, isNumber) &&
        optional(details.accepted_prediction_tokens, isNumber) &&
        optional(details.rejected_prediction_tokens, isNumber),
    )
  );
}

function isExtraContent(value: unknown): boolean {
  return isObject(value) && optional(value.google, (google) => isObject(google) && optional(google.thought_signature, isString));
}

function hasIdentity(value: Json): boolean {
  return (
    optional(value.id, isString) && optional(value.created, isNumber) && optional(value.model, isString) && optional(value.usage, isUsage)
  );
}

function isWholeToolCall(value: unknown): boolean {
  return (
    isObject(value) &&
    optional(value.id, isString) &&
    isObject(value.function) &&
    isString(value.function.name) &&
    isString(value.function.arguments) &&
    optional(value.extra_content, isExtraContent)
  );
}

/** A message or a delta: its text and reasoning, and tool calls of the given kind. */
function isTurn(value: unknown, roles: readonly unknown[], isToolCall: (call: unknown) => boolean): boolean {
  return (
    isObject(value) &&
    optional(value.role, (role) => roles.includes(role)) &&
    optional(value.content, isContent) &&
    optional(value.reasoning_content, isString) &&
    optional(value.reasoning, isString) &&
    optional(value.tool_calls, (calls) => Array.isArray(calls) && calls.every(isToolCall))
  );
}

/** A whole answer: `choices`, each with its `message`. */
export function isCompletion(value: unknown): value is Json & { choices: Json[] } {
  return (
    isObject(value) &&
    hasIdentity(value) &&
    Array.isArray(value.choices) &&
    value.choices.every(
      (choice) => isObject(choice) && isTurn(choice.message, ['assistant'], isWholeToolCall) && optional(choice.finish_reason, isString),
    )
  );
}

function isToolCallDelta(value: unknown): boolean {
  return (
    isObject(value) &&
    optional(value.index, isNumber) &&
    optional(value.id, isString) &&
    isObject(value.function) &&
    optional(value.function.name, isString) &&
    optional(value.function.arguments, isString) &&
    optional(value.extra_content, isExtraContent)
  );
}

/** A `chat.completion.chunk`: `choices`, each with an optional `delta`. */
export function isChunk(value: unknown): value is Json & { choices: Json[] } {
  return (
    isObject(value) &&
    hasIdentity(value) &&
    Array.isArray(value.choices) &&
    value.choices.every(
      (choice) =>
        isObject(choice) &&
        optional(choice.delta, (delta) => isTurn(delta, ['assistant', ''], isToolCallDelta)) &&
        optional(choice.finish_reason, isString),
    )
  );
}

/** The error object a host sends instead of a chunk or an answer: `{ error: { message, … } }`. */
export function isErrorBody(value: unknown): value is { error: Json & { message: string } } {
  return (
    isObject(value) &&
    isObject(value.error) &&
    isString(value.error.message) &&
    optional(value.error.type, isString) &&
    optional(value.error.code, (code) => isString(code) || isNumber(code))
  );
}
