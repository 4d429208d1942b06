import { registerDecorator, type ValidationOptions } from 'class-validator';

export type MetadataValue = string | number | boolean | null;
export type FlatMetadata = Record<string, MetadataValue>;

/** Generous bounds that keep one request's metadata from becoming a storage problem. */
export const METADATA_LIMITS = { keys: 64, keyLength: 128, stringValueLength: 2_048 } as const;

/** Why a metadata value is not acceptable, or undefined when it is. */
export function flatMetadataProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'metadata must be an object';
  const entries = Object.entries(value);
  if (entries.length > METADATA_LIMITS.keys) return `metadata may have at most ${METADATA_LIMITS.keys} keys`;
  for (const [key, item] of entries) {
    if (key.length === 0) return 'metadata keys must be non-empty strings';
    if (key.length > METADATA_LIMITS.keyLength) return `metadata keys may have at most ${METADATA_LIMITS.keyLength} characters`;
    if (item !== null && typeof item === 'object')
      return `metadata.${key} must be a string, number, boolean or null (nested objects and arrays are not accepted)`;
    if (typeof item === 'number' && !Number.isFinite(item)) return `metadata.${key} must be a finite number`;
    if (!['string', 'number', 'boolean'].includes(typeof item) && item !== null)
      return `metadata.${key} must be a string, number, boolean or null`;
    if (typeof item === 'string' && item.length > METADATA_LIMITS.stringValueLength)
      return `metadata.${key} may have at most ${METADATA_LIMITS.stringValueLength} characters`;
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
        defaultMessage: (args) => flatMetadataProblem(args?.value) ?? 'metadata is invalid',
      },
    });
}
