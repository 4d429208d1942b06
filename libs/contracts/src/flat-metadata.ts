import { errorMessage, type ErrorDetail } from '@waggle/errors';
import { registerDecorator, type ValidationOptions } from 'class-validator';

export type MetadataValue = string | number | boolean | null;
export type FlatMetadata = Record<string, MetadataValue>;

/** Generous bounds that keep one request's metadata from becoming a storage problem. */
export const METADATA_LIMITS = { keys: 64, keyLength: 128, stringValueLength: 2_048 } as const;

/** Why a metadata value is not acceptable (a message id, rendered in the reader's language), or undefined when it is. */
export function flatMetadataProblem(value: unknown): ErrorDetail | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { detail: 'metadata_not_object' };
  const entries = Object.entries(value);
  if (entries.length > METADATA_LIMITS.keys) return { detail: 'metadata_too_many_keys', params: { max: METADATA_LIMITS.keys } };
  for (const [key, item] of entries) {
    if (key.length === 0) return { detail: 'metadata_key_empty' };
    if (key.length > METADATA_LIMITS.keyLength) return { detail: 'metadata_key_too_long', params: { max: METADATA_LIMITS.keyLength } };
    if (item !== null && typeof item === 'object') return { detail: 'metadata_value_nested', params: { key } };
    if (typeof item === 'number' && !Number.isFinite(item)) return { detail: 'metadata_value_not_finite', params: { key } };
    if (!['string', 'number', 'boolean'].includes(typeof item) && item !== null) return { detail: 'metadata_value_type', params: { key } };
    if (typeof item === 'string' && item.length > METADATA_LIMITS.stringValueLength)
      return { detail: 'metadata_value_too_long', params: { key, max: METADATA_LIMITS.stringValueLength } };
  }
  return undefined;
}

/** The spec's metadata object: flat, non-empty string keys, scalar values. */
export function IsFlatMetadata(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isFlatMetadata',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => flatMetadataProblem(value) === undefined,
        defaultMessage: (args) => errorMessage(flatMetadataProblem(args?.value) ?? { detail: 'metadata_not_object' }, 'en'),
      },
    });
}
