import type { PromptVariantSpec } from '@waggle/contracts';
import { contentHashOf } from '@waggle/platform';
import type { VersionDraft } from '../deployments/deployment-applier';
import type { PromptVersionEntity } from './entities/prompt-version.entity';
import { declaredVariables } from './prompt-template';

/** One message of a stored version: its role and its template. */
export interface StoredPromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Model parameters as the definition file names them (snake_case). */
export interface StoredPromptParams {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  reasoning_effort?: 'minimal' | 'low' | 'medium' | 'high';
  thinking_budget?: number;
}

/** What a variant's version is made of, and what its content hash is taken of. */
export function definitionOf(variant: PromptVariantSpec) {
  return {
    model: variant.model,
    messages: variant.messages.map(({ role, content }) => ({ role, content })),
    params: { ...(variant.params ?? {}) } as StoredPromptParams,
    imageInputs: [...(variant.image_inputs ?? [])],
    // Left out when not set (undefined is not hashed), so a variant that sets neither hashes as
    // it did before they existed and re-applying an unchanged file changes nothing.
    fallbacks: variant.fallbacks?.length ? [...variant.fallbacks] : undefined,
    responseFormat: variant.response_format ?? undefined,
    // Only `workspace` is hashed: a variant that says nothing (or `hosted`) hashes as before.
    credentials: variant.credentials === 'workspace' ? ('workspace' as const) : undefined,
  };
}

/**
 * The version a variant's definition makes: what an apply stores, and what an experiment's inline
 * candidate runs without storing. Hashed in the locale's canonical form, with the variables its
 * templates use (an invalid template answers validation_error).
 */
export function promptVersionOf(variant: PromptVariantSpec): VersionDraft<PromptVersionEntity> {
  const definition = definitionOf(variant);
  return {
    model: definition.model,
    messages: definition.messages,
    params: definition.params,
    variables: declaredVariables(definition.messages.map((message) => message.content)),
    imageInputs: definition.imageInputs,
    fallbacks: definition.fallbacks ?? [],
    responseFormat: definition.responseFormat ?? null,
    credentials: definition.credentials ?? 'hosted',
    contentHash: contentHashOf(definition, 'locale'),
  };
}
