import { createHash } from 'node:crypto';

/**
 * How a definition's keys are ordered before hashing. Prompt versions were hashed with
 * `localeCompare` and workflow versions by UTF-16 code unit; stored hashes decide whether an
 * apply makes a new version, so each kind keeps its order (changing one would version every
 * unchanged variant once).
 */
export type KeyOrder = 'locale' | 'code-unit';

const COMPARE: Record<KeyOrder, (a: string, b: string) => number> = {
  locale: (a, b) => a.localeCompare(b),
  'code-unit': (a, b) => (a < b ? -1 : a > b ? 1 : 0),
};

/** JSON with sorted keys (undefined properties left out), so equal definitions hash equally whatever the file's key order. */
export function canonicalJson(value: unknown, keyOrder: KeyOrder): string {
  const compare = COMPARE[keyOrder];
  const write = (item: unknown): string => {
    if (Array.isArray(item)) return `[${item.map(write).join(',')}]`;
    if (item && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>).filter(([, entry]) => entry !== undefined);
      return `{${entries
        .sort(([a], [b]) => compare(a, b))
        .map(([key, entry]) => `${JSON.stringify(key)}:${write(entry)}`)
        .join(',')}}`;
    }
    return JSON.stringify(item);
  };
  return write(value);
}

/** The sha256 (hex) of a definition's canonical JSON: what a deployment's versions are compared by. */
export function contentHashOf(definition: unknown, keyOrder: KeyOrder): string {
  return createHash('sha256').update(canonicalJson(definition, keyOrder)).digest('hex');
}
