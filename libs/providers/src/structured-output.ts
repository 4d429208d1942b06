import { answerViolations, type SchemaViolation } from '@waggle/contracts';
import { WaggleException, nestedMessage } from '@waggle/errors';
import type { JsonSchemaResponseFormat, ModelAttempt, ModelRoute, PromptMessage } from './types';

/**
 * What a model without native structured output is told (D42: "instructed"): the schema
 * itself, and that the answer is the JSON and nothing else. Its answer is then validated
 * like any other.
 */
export function schemaInstruction(format: JsonSchemaResponseFormat): PromptMessage {
  return {
    role: 'system',
    content:
      `Answer with a single JSON value and nothing else (no prose, no code fence)` +
      `${format.name ? `, named ${format.name},` : ''} that is valid against this JSON Schema (draft 2020-12):\n` +
      JSON.stringify(format.schema),
  };
}

/** The turn that asks for a repair: the answer as the model gave it, then each violation. */
export function repairMessages(answer: string, violations: readonly SchemaViolation[]): PromptMessage[] {
  const listed = violations.map(({ path, message }) => `- ${path === '' ? '(the whole answer)' : path}: ${message}`).join('\n');
  return [
    { role: 'assistant', content: answer },
    {
      role: 'user',
      content:
        `That answer is not valid against the JSON Schema:\n${listed}\n` +
        'Answer again with only the corrected JSON value, valid against the schema.',
    },
  ];
}

/** The model's messages for a call with a response format: an instruction first when the model has no native support. */
export function withSchemaInstruction(
  route: ModelRoute,
  format: JsonSchemaResponseFormat | undefined,
  messages: PromptMessage[],
): PromptMessage[] {
  if (!format || route.nativeJsonSchema) return messages;
  return [schemaInstruction(format), ...messages];
}

/** How an answer fails its response format; empty when it matches (or there is none). */
export function violationsOf(format: JsonSchemaResponseFormat | undefined, answer: string): SchemaViolation[] {
  return format ? answerViolations(format, answer) : [];
}

/**
 * The run's failure when the answer still does not match after its repair: 502 provider_error
 * whose `details` list every violation (where, and why) and every model call it took.
 */
export function schemaMismatch(route: ModelRoute, violations: SchemaViolation[], attempts: ModelAttempt[]): WaggleException {
  return new WaggleException('provider_error', {
    detail: 'provider_request_failed',
    params: {
      provider: route.providerName,
      reason: nestedMessage({ detail: 'provider_reason_schema_mismatch', params: { count: violations.length } }),
    },
    details: { provider: route.provider, model: route.modelId, violations, attempts },
  });
}
