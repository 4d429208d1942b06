import { diffLines } from 'diff';
import { stringify } from 'yaml';

/** Fields of a version answer that describe where it stands, not what it runs: left out of the rendering. */
const POINTER_FIELDS = new Set(['version_id', 'version', 'created_at', 'current', 'labels']);

/** A value with every object's keys sorted, so two renderings differ only where the definitions do. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value === 'object' && value !== null) {
    const sorted: Record<string, unknown> = {};
    for (const name of Object.keys(value).sort()) sorted[name] = sortedKeys((value as Record<string, unknown>)[name]);
    return sorted;
  }
  return value;
}

/**
 * A version of a prompt or workflow variant as stable YAML: what runs of it execute (model,
 * messages, params, fallbacks, response format, credentials; a workflow's definition), keys
 * sorted, without its number, dates and pointers, so the text is the same for equal definitions.
 */
export function renderVersion(version: Record<string, unknown>): string {
  const definition: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(version)) if (!POINTER_FIELDS.has(name) && value !== undefined) definition[name] = value;
  return stringify(sortedKeys(definition), { lineWidth: 0 });
}

export interface DiffLine {
  kind: 'added' | 'removed' | 'same';
  text: string;
}

/** The line diff from one rendering to another (jsdiff), one entry per line. */
export function diffRenderings(from: string, to: string): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(from, to)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    const text = part.value.endsWith('\n') ? part.value.slice(0, -1) : part.value;
    for (const line of text.split('\n')) lines.push({ kind, text: line });
  }
  return lines;
}
