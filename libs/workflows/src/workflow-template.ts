import { Liquid, type Template } from 'liquidjs';
import { LRUCache } from 'lru-cache';

/**
 * The run scope a step's templates render against:
 * - every input by name at the top level (`{{ topic }}`);
 * - every step that ran before, by id, as its record `{ output, error }` (`{{ search.output.results }}`);
 * - inside a loop's steps, `item` (the current element of `over`) and `index` (from 0).
 */
export type WorkflowScope = Record<string, unknown>;

/** What a finished step exposes to later steps. `error` is set when it failed and `on_error: continue` let the run go on. */
export interface StepRecordScope {
  output: unknown;
  error: string | null;
}

/**
 * Strict filters catch typos at apply time; a missing variable or property renders empty
 * (references were checked at apply time, so a missing one is a value the run did not
 * produce: a step of the branch not taken, a null output). Objects and arrays printed inside
 * text render as JSON, never as "[object Object]".
 */
const liquid = new Liquid({ strictFilters: true, strictVariables: false, outputEscape: liquidOutputText });

/**
 * What `{{ value }}` prints, for every Liquid template of Waggle (workflows' and prompts'):
 * nothing for null, objects and arrays as JSON, anything else as text. Never `String()` of an
 * object, which throws for a caller's `{"toString": null}` and prints "[object Object]" otherwise.
 */
export function liquidOutputText(value: unknown): string {
  return value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** `{{ a.b[0].c }}` alone: whitespace allowed, no filters. Such a field keeps the referenced value as it is. */
const EXACT_REFERENCE = /^\s*\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)\s*-?\}\}\s*$/;

type Compiled = { kind: 'reference'; path: Array<string | number> } | { kind: 'template'; templates: Template[] } | { kind: 'text' };

/** Compiled strings by source text: a version's definition never changes, so each is parsed once. */
const compiled = new LRUCache<string, Compiled>({ max: 10_000 });
let parses = 0;

function referencePath(expression: string): Array<string | number> {
  const path: Array<string | number> = [];
  for (const match of expression.matchAll(/([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)) path.push(match[1] ?? Number(match[2]));
  return path;
}

function compile(source: string): Compiled {
  let entry = compiled.get(source);
  if (entry) return entry;
  const exact = EXACT_REFERENCE.exec(source);
  if (exact) entry = { kind: 'reference', path: referencePath(exact[1]) };
  else if (!source.includes('{{') && !source.includes('{%')) entry = { kind: 'text' };
  else {
    parses += 1;
    entry = { kind: 'template', templates: liquid.parse(source) };
  }
  compiled.set(source, entry);
  return entry;
}

/** How many strings were parsed by LiquidJS since the process started (to prove the cache works). */
export function templateParseCount(): number {
  return parses;
}

/**
 * The root variables a template reads (`search` for `{{ search.output.results[0] }}`),
 * loop variables of `{% for %}` and `{% assign %}`ed names excluded. Throws LiquidJS's
 * error when the string is not a valid template (or names an unknown filter).
 */
export function templateRoots(source: string): string[] {
  const entry = compile(source);
  if (entry.kind === 'text') return [];
  if (entry.kind === 'reference') return [String(entry.path[0])];
  return liquid.globalVariablesSync(entry.templates);
}

function lookup(scope: unknown, path: Array<string | number>): unknown {
  let value = scope;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value) && typeof key === 'number') value = value[key];
    else if (Array.isArray(value) && key === 'size') value = value.length;
    else if (Array.isArray(value) && key === 'first') value = value[0];
    else if (Array.isArray(value) && key === 'last') value = value[value.length - 1];
    else if (Object.prototype.hasOwnProperty.call(value, key)) value = (value as Record<string, unknown>)[key];
    else return undefined;
  }
  return value;
}

/**
 * Renders a step field against the run scope. A string is a LiquidJS template rendered to a
 * string, except a string that is exactly one reference (`"{{ search.output.results }}"`),
 * which keeps the value it points at (array, object, number, boolean; `null` when that value
 * is missing). Arrays and objects are rendered element by element; other values pass as they are.
 */
export function renderValue(value: unknown, scope: WorkflowScope): unknown {
  if (typeof value === 'string') {
    const entry = compile(value);
    if (entry.kind === 'text') return value;
    if (entry.kind === 'reference') return lookup(scope, entry.path) ?? null;
    return liquid.renderSync(entry.templates, scope) as string;
  }
  if (Array.isArray(value)) return value.map((element) => renderValue(element, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, element]) => [key, renderValue(element, scope)]));
  }
  return value;
}

/** Renders a field that must end up text (a message, a URL, the variant's output): an exact reference to a non-string is printed as Liquid would (objects as JSON, null as ""). */
export function renderText(source: string, scope: WorkflowScope): string {
  const rendered = renderValue(source, scope);
  if (typeof rendered === 'string') return rendered;
  if (rendered === null || rendered === undefined) return '';
  return typeof rendered === 'object' ? JSON.stringify(rendered) : String(rendered);
}
