// The model catalog lives in a versioned data file (data/models.yaml). This module parses it,
// validates every entry and maps the file's snake_case keys onto camelCase types. It has no
// Nest or database dependency so it can be used by loaders, tools and specs alike.
import { isValidPrice, MAX_PRICE_PER_MILLION, PRICE_DECIMALS, PRICE_VERSION_PATTERN, type ModelPricing } from '@waggle/contracts';
import * as path from 'node:path';
import { parseDocument } from 'yaml';

export type ModelType = 'llm' | 'image_generation' | 'embedding';
/** `local`: run by Waggle itself (the bundled embedding model), no credentials. */
export type ProviderApi = 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'local';
export type ModelStatus = 'active' | 'deprecated';

export interface CatalogProvider {
  key: string;
  name: string;
  api: ProviderApi;
}

export interface CatalogModel {
  id: string;
  name: string;
  slug: string;
  provider: string;
  maker: string;
  providerModelId: string;
  modelType: ModelType;
  contextLimit: number;
  isVision: boolean;
  isReasoning: boolean;
  isToolCalling: boolean;
  isJsonSchema: boolean;
  status: ModelStatus;
  /** USD per million tokens, as the file gives it (`reasoning` null when not billed apart). */
  pricing: ModelPricing;
}

export interface ModelCatalogFile {
  version: string;
  providers: CatalogProvider[];
  makers: Array<{ key: string; name: string }>;
  models: CatalogModel[];
}

/** Thrown by {@link parseModelCatalog}; `problems` lists every problem found, not just the first. */
export class ModelCatalogFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid model catalog file (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n- ${problems.join('\n- ')}`);
    this.name = 'ModelCatalogFileError';
  }
}

export const MODEL_TYPES: readonly ModelType[] = ['llm', 'image_generation', 'embedding'];
export const PROVIDER_APIS: readonly ProviderApi[] = ['openai', 'anthropic', 'google', 'openai-compatible', 'local'];
export const MODEL_STATUSES: readonly ModelStatus[] = ['active', 'deprecated'];

const TOP_LEVEL_KEYS = ['version', 'providers', 'makers', 'models'] as const;
const PROVIDER_KEYS = ['name', 'api'] as const;
const MODEL_STRING_FIELDS = ['id', 'name', 'provider', 'maker', 'provider_model_id', 'model_type', 'status'] as const;
const MODEL_FLAG_FIELDS = ['vision', 'reasoning', 'tool_calling', 'json_schema'] as const;
const MODEL_KEYS: readonly string[] = [...MODEL_STRING_FIELDS, 'context_limit', ...MODEL_FLAG_FIELDS, 'pricing'];
const PRICE_FIELDS = ['input', 'cached_input', 'cache_write', 'output'] as const;
const PRICING_KEYS: readonly string[] = [...PRICE_FIELDS, 'reasoning', 'price_version'];
/** Provider and maker keys: lowercase letters, digits and single inner dashes. */
const KEY_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Catalog versions are compared numerically part by part ("2026.11.10" > "2026.11.9"). */
const VERSION_PATTERN = /^\d+(?:\.\d+)*$/;
/** context_limit is stored in a 32-bit integer column. */
export const MAX_CONTEXT_LIMIT = 2_147_483_647;
/** Capabilities that only a chat/text model can have. */
const LLM_ONLY_FLAGS = ['tool_calling', 'reasoning', 'json_schema'] as const;

/**
 * URL-friendly slug of a display name: Unicode-decomposed with accents dropped, lower-cased,
 * every run of characters outside [a-z0-9] replaced by one '-', leading/trailing '-' removed.
 * "GPT-4o mini" -> "gpt-4o-mini", "Claude Sonnet 4.5" -> "claude-sonnet-4-5",
 * "Llama 3.3 70B (Groq)" -> "llama-3-3-70b-groq". Returns '' when nothing is left.
 */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The catalog file shipped with the catalog app (copied next to the compiled code by the build). */
export function defaultModelCatalogPath(): string {
  return path.join(__dirname, 'data', 'models.yaml');
}

/**
 * Parses and validates a model catalog file. Returns the catalog only when the file has no
 * problem at all; otherwise throws {@link ModelCatalogFileError} naming every problem.
 */
export function parseModelCatalog(yamlText: string): ModelCatalogFile {
  const problems: string[] = [];
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ModelCatalogFileError(doc.errors.map((error) => `YAML: ${error.message}`));
  }
  const root: unknown = doc.toJS();
  if (!isPlainObject(root)) {
    throw new ModelCatalogFileError(['the file must be a mapping with the keys version, providers, makers and models']);
  }
  reportUnknownKeys(root, TOP_LEVEL_KEYS, 'top level', problems);

  const version = readVersion(root, problems);
  const providers = readProviders(root, problems);
  const makers = readMakers(root, problems);
  const models = readModels(root, new Set(providers.map((p) => p.key)), new Set(makers.map((m) => m.key)), problems);

  if (problems.length > 0) throw new ModelCatalogFileError(problems);
  return { version, providers, makers, models };
}

function readVersion(root: Record<string, unknown>, problems: string[]): string {
  if (!('version' in root)) {
    problems.push('version: missing');
    return '';
  }
  const version = root['version'];
  if (typeof version !== 'string' || version.trim() === '') {
    problems.push(`version: must be a non-empty string (quote it), got ${describe(version)}`);
    return '';
  }
  if (!VERSION_PATTERN.test(version)) {
    problems.push(`version: must be dot-separated numbers such as "2026.11.1" (versions are compared part by part), got "${version}"`);
    return '';
  }
  return version;
}

function readProviders(root: Record<string, unknown>, problems: string[]): CatalogProvider[] {
  const section = readSectionMapping(root, 'providers', problems);
  const providers: CatalogProvider[] = [];
  for (const [key, value] of Object.entries(section)) {
    const where = `providers.${key}`;
    if (!KEY_PATTERN.test(key)) problems.push(`${where}: key must match ${KEY_PATTERN.source}`);
    if (!isPlainObject(value)) {
      problems.push(`${where}: must be a mapping with name and api, got ${describe(value)}`);
      continue;
    }
    reportUnknownKeys(value, PROVIDER_KEYS, where, problems);
    const name = readRequiredString(value, 'name', where, problems);
    const api = readRequiredString(value, 'api', where, problems);
    if (api !== undefined && !isOneOf(api, PROVIDER_APIS)) {
      problems.push(`${where}.api: must be one of ${PROVIDER_APIS.join(', ')}, got "${api}"`);
    }
    if (name !== undefined && api !== undefined && isOneOf(api, PROVIDER_APIS)) providers.push({ key, name, api });
  }
  return providers;
}

function readMakers(root: Record<string, unknown>, problems: string[]): Array<{ key: string; name: string }> {
  const section = readSectionMapping(root, 'makers', problems);
  const makers: Array<{ key: string; name: string }> = [];
  for (const [key, value] of Object.entries(section)) {
    const where = `makers.${key}`;
    if (!KEY_PATTERN.test(key)) problems.push(`${where}: key must match ${KEY_PATTERN.source}`);
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${where}: must be a non-empty display name, got ${describe(value)}`);
      continue;
    }
    makers.push({ key, name: value });
  }
  return makers;
}

function readModels(
  root: Record<string, unknown>,
  providerKeys: ReadonlySet<string>,
  makerKeys: ReadonlySet<string>,
  problems: string[],
): CatalogModel[] {
  if (!('models' in root)) {
    problems.push('models: missing');
    return [];
  }
  const list = root['models'];
  if (!Array.isArray(list)) {
    problems.push(`models: must be a list, got ${describe(list)}`);
    return [];
  }
  const models: CatalogModel[] = [];
  const firstIndexOf = { id: new Map<string, number>(), name: new Map<string, number>(), slug: new Map<string, number>() };
  list.forEach((entry: unknown, index) => {
    const model = readModel(entry, index, providerKeys, makerKeys, problems);
    if (model === undefined) return;
    for (const field of ['id', 'name', 'slug'] as const) {
      const value = model[field];
      const first = firstIndexOf[field].get(value);
      if (first !== undefined)
        problems.push(`${modelLabel(index, model.id)}: duplicate ${field} "${value}" (first used by models[${first}])`);
      else firstIndexOf[field].set(value, index);
    }
    models.push(model);
  });
  return models;
}

function readModel(
  entry: unknown,
  index: number,
  providerKeys: ReadonlySet<string>,
  makerKeys: ReadonlySet<string>,
  problems: string[],
): CatalogModel | undefined {
  if (!isPlainObject(entry)) {
    problems.push(`models[${index}]: must be a mapping, got ${describe(entry)}`);
    return undefined;
  }
  const where = modelLabel(index, typeof entry['id'] === 'string' ? entry['id'] : undefined);
  const before = problems.length;
  reportUnknownKeys(entry, MODEL_KEYS, where, problems);

  const strings: Partial<Record<(typeof MODEL_STRING_FIELDS)[number], string>> = {};
  for (const field of MODEL_STRING_FIELDS) strings[field] = readRequiredString(entry, field, where, problems);
  const { id, name, provider, maker, provider_model_id: providerModelId, model_type: modelType, status } = strings;

  if (modelType !== undefined && !isOneOf(modelType, MODEL_TYPES)) {
    problems.push(`${where}: model_type must be one of ${MODEL_TYPES.join(', ')}, got "${modelType}"`);
  }
  if (status !== undefined && !isOneOf(status, MODEL_STATUSES)) {
    problems.push(`${where}: status must be one of ${MODEL_STATUSES.join(', ')}, got "${status}"`);
  }
  if (provider !== undefined && !providerKeys.has(provider))
    problems.push(`${where}: unknown provider "${provider}" (not under providers)`);
  if (maker !== undefined && !makerKeys.has(maker)) problems.push(`${where}: unknown maker "${maker}" (not under makers)`);

  const slug = name === undefined ? '' : slugify(name);
  if (name !== undefined && slug === '')
    problems.push(`${where}: name "${name}" gives an empty slug (it needs at least one ASCII letter or digit)`);

  if (id !== undefined && provider !== undefined && maker !== undefined && providerModelId !== undefined) {
    const expected = provider === maker ? providerModelId : `${provider}/${providerModelId}`;
    if (id !== expected) {
      problems.push(
        `${where}: id must be "${expected}" (${provider === maker ? 'a model served by its maker uses the provider model id' : 'a hosted model uses "<provider>/<provider_model_id>"'})`,
      );
    }
  }

  let contextLimit: number | undefined;
  if (!('context_limit' in entry)) problems.push(`${where}: missing field context_limit`);
  else {
    const value = entry['context_limit'];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_CONTEXT_LIMIT) {
      problems.push(
        `${where}: context_limit must be a non-negative integer up to ${MAX_CONTEXT_LIMIT} (0 when unknown), got ${describe(value)}`,
      );
    } else contextLimit = value;
  }

  const flags: Partial<Record<(typeof MODEL_FLAG_FIELDS)[number], boolean>> = {};
  for (const field of MODEL_FLAG_FIELDS) {
    if (!(field in entry)) {
      problems.push(`${where}: missing field ${field}`);
      continue;
    }
    const value = entry[field];
    if (typeof value !== 'boolean') problems.push(`${where}: ${field} must be true or false, got ${describe(value)}`);
    else flags[field] = value;
  }
  if (modelType === 'image_generation' || modelType === 'embedding') {
    for (const field of LLM_ONLY_FLAGS) {
      if (flags[field] === true) problems.push(`${where}: ${field} must be false for ${modelType} models`);
    }
  }

  const pricing = readPricing(entry, where, problems);

  if (problems.length > before) return undefined;
  return {
    id: id as string,
    name: name as string,
    slug,
    provider: provider as string,
    maker: maker as string,
    providerModelId: providerModelId as string,
    modelType: modelType as ModelType,
    contextLimit: contextLimit as number,
    isVision: flags.vision as boolean,
    isReasoning: flags.reasoning as boolean,
    isToolCalling: flags.tool_calling as boolean,
    isJsonSchema: flags.json_schema as boolean,
    status: status as ModelStatus,
    pricing: pricing as ModelPricing,
  };
}

/** A model's `pricing`: every model has one (0 where it is free), in USD per million tokens. */
function readPricing(entry: Record<string, unknown>, where: string, problems: string[]): ModelPricing | undefined {
  if (!('pricing' in entry)) {
    problems.push(`${where}: missing field pricing (${PRICING_KEYS.join(', ')}; USD per million tokens, 0 where free)`);
    return undefined;
  }
  const value = entry['pricing'];
  const at = `${where}.pricing`;
  if (!isPlainObject(value)) {
    problems.push(`${at}: must be a mapping with ${PRICING_KEYS.join(', ')}, got ${describe(value)}`);
    return undefined;
  }
  const before = problems.length;
  reportUnknownKeys(value, PRICING_KEYS, at, problems);
  const prices: Partial<Record<(typeof PRICE_FIELDS)[number] | 'reasoning', number>> = {};
  for (const field of [...PRICE_FIELDS, 'reasoning'] as const) {
    if (!(field in value)) {
      if (field !== 'reasoning') problems.push(`${at}: missing field ${field}`);
      continue;
    }
    const price = value[field];
    if (field === 'reasoning' && price === null) continue;
    if (isValidPrice(price)) prices[field] = price;
    else
      problems.push(
        `${at}: ${field} must be a number of USD per million tokens from 0 to ${MAX_PRICE_PER_MILLION} with at most ${PRICE_DECIMALS} decimals, got ${describe(price)}`,
      );
  }
  const version = readRequiredString(value, 'price_version', at, problems);
  if (version !== undefined && !PRICE_VERSION_PATTERN.test(version))
    problems.push(`${at}: price_version must be a short label such as "2026-11-21" (${PRICE_VERSION_PATTERN.source}), got "${version}"`);
  if (problems.length > before) return undefined;
  return {
    input: prices.input as number,
    cached_input: prices.cached_input as number,
    cache_write: prices.cache_write as number,
    output: prices.output as number,
    reasoning: prices.reasoning ?? null,
    price_version: version as string,
  };
}

function readSectionMapping(root: Record<string, unknown>, key: 'providers' | 'makers', problems: string[]): Record<string, unknown> {
  if (!(key in root)) {
    problems.push(`${key}: missing`);
    return {};
  }
  const section = root[key];
  if (!isPlainObject(section)) {
    problems.push(`${key}: must be a mapping, got ${describe(section)}`);
    return {};
  }
  if (Object.keys(section).length === 0) problems.push(`${key}: must not be empty`);
  return section;
}

function readRequiredString(record: Record<string, unknown>, field: string, where: string, problems: string[]): string | undefined {
  if (!(field in record)) {
    problems.push(`${where}: missing field ${field}`);
    return undefined;
  }
  const value = record[field];
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${where}: ${field} must be a non-empty string, got ${describe(value)}`);
    return undefined;
  }
  if (value !== value.trim()) {
    problems.push(`${where}: ${field} must not start or end with whitespace`);
    return undefined;
  }
  return value;
}

function reportUnknownKeys(record: Record<string, unknown>, allowed: readonly string[], where: string, problems: string[]): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) problems.push(`${where}: unknown key "${key}" (allowed: ${allowed.join(', ')})`);
  }
}

function modelLabel(index: number, id: string | undefined): string {
  return id === undefined ? `models[${index}]` : `models[${index}] (${id})`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map) && !(value instanceof Set);
}

function isOneOf<T extends string>(value: string, allowed: readonly T[]): value is T {
  return (allowed as readonly string[]).includes(value);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `"${value}"`;
  return `${typeof value} ${String(value)}`;
}
