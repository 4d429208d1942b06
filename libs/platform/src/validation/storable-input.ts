import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';

/**
 * How deep a request's JSON may nest. Deep enough for any real input (a tool's JSON schema
 * nests a dozen levels), shallow enough that nothing downstream (class-transformer, the
 * ledger's JSON, a template) recurses into a stack overflow.
 */
export const MAX_INPUT_DEPTH = 64;

const NUL = '\u0000';
/** Half of a surrogate pair alone: in `u` mode a whole pair is one code point, so only an unpaired half matches. */
const UNPAIRED_SURROGATE = /\p{Surrogate}/u;

export interface UnstorableInput {
  /** Where the input first goes deeper than MAX_INPUT_DEPTH. */
  tooDeep?: string;
  /** Strings and keys holding U+0000, which PostgreSQL cannot store in text or jsonb. */
  nulFields: string[];
  /** Strings and keys holding half a surrogate pair (not Unicode text), which jsonb refuses too. */
  unpairedFields: string[];
}

/** Whether a string PostgreSQL can store: no NUL, no unpaired surrogate. */
function storableText(text: string): boolean {
  return !text.includes(NUL) && !UNPAIRED_SURROGATE.test(text);
}

/** Adds `path` to the list of each problem `text` has. */
function noteText(text: string, path: string, found: UnstorableInput): void {
  if (text.includes(NUL)) found.nulFields.push(path);
  if (UNPAIRED_SURROGATE.test(text)) found.unpairedFields.push(path);
}

function join(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

/**
 * Finds what no service could store or safely walk: nesting past MAX_INPUT_DEPTH and NUL
 * characters in strings or keys. Iterative, so the check itself cannot overflow; it stops
 * at the first level too deep.
 */
export function findUnstorableInput(value: unknown, root = ''): UnstorableInput {
  const found: UnstorableInput = { nulFields: [], unpairedFields: [] };
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: current, path, depth } = next;
    if (typeof current === 'string') {
      noteText(current, path, found);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return { tooDeep: path, ...found };
    const entries: Array<[string | number, unknown]> = Array.isArray(current)
      ? current.map((item, index) => [index, item])
      : Object.entries(current);
    for (const [key, item] of entries) {
      const itemPath = join(path, key);
      if (typeof key === 'string') noteText(key, itemPath, found);
      pending.push({ value: item, path: itemPath, depth: depth + 1 });
    }
  }
  return found;
}

/**
 * Whether a value holds nothing findUnstorableInput would report, without building its paths:
 * the check every request and NATS payload passes through, allocation-free. Recursive, to at
 * most MAX_INPUT_DEPTH levels (deeper is the refusal). `for…in` visits at least the keys
 * `Object.entries` does, so it never passes what the full walk would refuse.
 */
function isPlainlyStorable(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return storableText(value);
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= MAX_INPUT_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) if (!isPlainlyStorable(value[index], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!storableText(key) || !isPlainlyStorable((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** Throws the catalog's answer for input no service could store: 400 for nesting, 422 naming each NUL or unpaired-surrogate field. */
export function assertStorableInput(value: unknown, root = ''): void {
  if (isPlainlyStorable(value, 0)) return;
  const { tooDeep, nulFields, unpairedFields } = findUnstorableInput(value, root);
  if (tooDeep !== undefined) {
    throw new WaggleException('invalid_request', {
      detail: 'request_input_too_deep',
      params: { depth: MAX_INPUT_DEPTH },
      details: [{ field: tooDeep, messages: [`nesting deeper than ${MAX_INPUT_DEPTH} levels is not accepted`] }],
    });
  }
  if (nulFields.length > 0 || unpairedFields.length > 0) {
    const details = [
      ...nulFields.map((field) => ({ field, messages: [`${field || 'the value'} must not contain the NUL character (\\u0000)`] })),
      ...unpairedFields.map((field) => ({
        field,
        messages: [`${field || 'the value'} must be Unicode text: it holds half of a surrogate pair (\\ud800–\\udfff) alone`],
      })),
    ];
    throw new WaggleException('validation_error', {
      details: details.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)),
    });
  }
}

/**
 * Runs before validation on every body, query and path parameter (gateway) and NATS payload
 * (services): input that would overflow class-transformer's recursion or that PostgreSQL
 * refuses is answered in the catalog's shape instead of reaching either.
 */
export class StorableInputPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'custom') assertStorableInput(value, metadata.data ?? '');
    return value;
  }
}
