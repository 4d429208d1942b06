import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from './app-process';
import { cliJson } from './cli';

/**
 * The price of a fake model unless a test gives its own (USD per million tokens): round numbers, so
 * a test's expected cost is easy to work out (a token of input costs 1 micro-USD, of output 4).
 */
export const FAKE_MODEL_PRICING = Object.freeze({ input: 1, cached_input: 0.1, cache_write: 1.25, output: 4, price_version: 'fake-1' });

/** A catalog entry served by the fake provider (an OpenAI-compatible host named `fake`). */
export function fakeModel(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `Fake ${id}`,
    provider: 'fake',
    maker: 'fake',
    provider_model_id: id,
    model_type: 'llm',
    context_limit: 8192,
    vision: false,
    reasoning: true,
    tool_calling: false,
    json_schema: false,
    status: 'active',
    pricing: { ...FAKE_MODEL_PRICING },
    ...extra,
  };
}

/**
 * Loads the shipped model catalog plus `models` (with the `fake` provider declared) into
 * the running catalog service, under `version`. The fake provider's URL and key reach the
 * invocation service as FAKE_BASE_URL / FAKE_API_KEY. Load the shipped catalog back with
 * `cliJson(['catalog', 'load', '--force'])` when done. `env` is the CLI's, on top of the test's
 * (another NATS, its credentials).
 */
export async function loadCatalogWithFakeModels(
  version: string,
  models: Array<Record<string, unknown>>,
  env: Record<string, string> = {},
): Promise<void> {
  const catalog = parse(readFileSync(join(REPO_ROOT, 'apps/catalog/src/models/data/models.yaml'), 'utf8')) as {
    version: string;
    providers: Record<string, unknown>;
    makers: Record<string, unknown>;
    models: unknown[];
  };
  catalog.version = version;
  catalog.providers.fake = { name: 'Fake Provider', api: 'openai-compatible' };
  catalog.makers.fake = 'Fake Labs';
  catalog.models.push(...models);
  const file = join(mkdtempSync(join(tmpdir(), 'waggle-catalog-')), 'models.yaml');
  writeFileSync(file, stringify(catalog));
  await cliJson(['catalog', 'load', '--file', file], env);
}
