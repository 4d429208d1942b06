import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

/** What the apply routes take: the file's `prompts` list, its `workflows` list, or both. */
export interface ApplyBodies {
  prompts?: unknown[];
  workflows?: unknown[];
}

/** One problem of the pasted file, on the line it points at (1-based; null when no line could be found). */
export interface PlacedError {
  line: number | null;
  /** The field the API named (`prompts[0].variants[1].split`), or null for a YAML syntax error. */
  field: string | null;
  messages: string[];
}

/** The segments of a field path as the API names it: `prompts[0].variants[1].split` or `prompts.0.variants.0.messages.0.role`. */
export function pathSegments(field: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const part of field.split(/\.|\[(\d+)\]/)) {
    if (part === undefined || part === '') continue;
    segments.push(/^\d+$/.test(part) ? Number(part) : part);
  }
  return segments;
}

/**
 * The 1-based line of the YAML text that a field path points at: the key of the deepest field
 * the path reaches (a missing field points at the object that lacks it), or an item's first line.
 */
export function lineOfPath(text: string, field: string): number | null {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  let node: unknown = document.contents;
  let offset: number | null = (node as Node | null)?.range?.[0] ?? null;
  for (const segment of pathSegments(field)) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === String(segment));
      if (!pair) break;
      offset = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as Node | undefined;
      if (!item) break;
      offset = item.range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset === null ? null : lineCounter.linePos(offset).line;
}

/** A `details` entry's messages as text (the gateway already localized them). */
function messagesOf(entry: Record<string, unknown>): string[] {
  const messages = Array.isArray(entry.messages) ? entry.messages : [];
  return messages.map((message) => (typeof message === 'string' ? message : JSON.stringify(message)));
}

/** The 422 answer's `details` (`[{field, messages}]`) placed on the lines of the text they point at. */
export function placeErrors(text: string, details: unknown): PlacedError[] {
  if (!Array.isArray(details)) return [];
  return details
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && typeof entry.field === 'string')
    .map((entry) => ({ line: lineOfPath(text, entry.field as string), field: entry.field as string, messages: messagesOf(entry) }));
}

/**
 * Reads the pasted file: its `prompts` and `workflows` lists, or its YAML syntax errors placed on
 * their lines (nothing is sent then).
 */
export function readApplyFile(text: string): { bodies: ApplyBodies } | { errors: PlacedError[] } {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0)
    return {
      errors: document.errors.map((error) => ({
        line: lineCounter.linePos(error.pos[0]).line,
        field: null,
        messages: [error.message.split('\n')[0]],
      })),
    };
  const value: unknown = document.toJS();
  const file = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const bodies: ApplyBodies = {};
  if (Array.isArray(file.prompts)) bodies.prompts = file.prompts;
  if (Array.isArray(file.workflows)) bodies.workflows = file.workflows;
  if (bodies.prompts === undefined && bodies.workflows === undefined)
    return { errors: [{ line: 1, field: null, messages: ['The file needs a `prompts:` or a `workflows:` list.'] }] };
  return { bodies };
}
