import { readFileSync } from 'node:fs';
import {
  type CatalogModel,
  defaultModelCatalogPath,
  type ModelCatalogFile,
  ModelCatalogFileError,
  parseModelCatalog,
  slugify,
} from './model-catalog-file';

/** Runs parseModelCatalog and returns the problems it reported (fails the test if it did not throw). */
function problemsOf(yamlText: string): string[] {
  try {
    parseModelCatalog(yamlText);
  } catch (error: unknown) {
    expect(error).toBeInstanceOf(ModelCatalogFileError);
    return (error as ModelCatalogFileError).problems;
  }
  throw new Error('expected parseModelCatalog to reject the file');
}

const HEADER = `version: "2026.11.1"
providers:
  openai: { name: OpenAI, api: openai }
  groq: { name: Groq, api: openai-compatible }
makers:
  openai: OpenAI
  meta: Meta
models:
`;

/** One model entry as YAML list item; `overrides` replaces or (value undefined) removes lines. */
function modelYaml(overrides: Record<string, string | undefined> = {}): string {
  const fields: Record<string, string | undefined> = {
    id: 'gpt-4o-mini',
    name: 'GPT-4o mini',
    provider: 'openai',
    maker: 'openai',
    provider_model_id: 'gpt-4o-mini',
    model_type: 'llm',
    context_limit: '128000',
    vision: 'true',
    reasoning: 'false',
    tool_calling: 'true',
    json_schema: 'true',
    status: 'active',
    pricing: "{ input: 0.15, cached_input: 0.075, cache_write: 0.15, output: 0.6, price_version: '2026-11-21' }",
    ...overrides,
  };
  const lines = Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `    ${key}: ${value}`);
  return `  - ${lines.join('\n').trimStart()}\n`;
}

describe('model catalog file', () => {
  describe('the shipped data/models.yaml', () => {
    let catalog: ModelCatalogFile;
    const byId = (id: string): CatalogModel => {
      const model = catalog.models.find((m) => m.id === id);
      if (model === undefined) throw new Error(`model ${id} is not in the catalog`);
      return model;
    };
    const active = (): CatalogModel[] => catalog.models.filter((m) => m.status === 'active');

    beforeAll(() => {
      catalog = parseModelCatalog(readFileSync(defaultModelCatalogPath(), 'utf8'));
    });

    it('parses without problems and carries a dated version', () => {
      expect(catalog.version).toMatch(/^\d{4}\.\d{1,2}\.\d+$/);
      expect(catalog.models.length).toBeGreaterThanOrEqual(45);
      expect(catalog.models.length).toBeLessThanOrEqual(80);
    });

    it('has enough active llm, image generation, embedding and deprecated models', () => {
      expect(active().filter((m) => m.modelType === 'llm').length).toBeGreaterThanOrEqual(40);
      expect(active().filter((m) => m.modelType === 'image_generation').length).toBeGreaterThanOrEqual(3);
      expect(catalog.models.filter((m) => m.modelType === 'embedding').length).toBeGreaterThanOrEqual(3);
      expect(catalog.models.filter((m) => m.status === 'deprecated').length).toBeGreaterThanOrEqual(4);
    });

    it('declares the serving providers with their API styles', () => {
      const apis = Object.fromEntries(catalog.providers.map((p) => [p.key, p.api]));
      expect(apis).toEqual({
        openai: 'openai',
        anthropic: 'anthropic',
        google: 'google',
        mistral: 'openai-compatible',
        deepseek: 'openai-compatible',
        xai: 'openai-compatible',
        groq: 'openai-compatible',
        together: 'openai-compatible',
        openrouter: 'openai-compatible',
        ollama: 'openai-compatible',
        local: 'local',
      });
      expect(catalog.makers.map((m) => m.key)).toEqual(expect.arrayContaining(['openai', 'anthropic', 'google', 'meta', 'alibaba']));
    });

    it('has an active model for every provider and at least two for each open-model host', () => {
      for (const provider of catalog.providers) {
        expect([provider.key, active().filter((m) => m.provider === provider.key).length]).not.toEqual([provider.key, 0]);
      }
      for (const host of ['ollama', 'groq', 'together', 'openrouter']) {
        expect([host, active().filter((m) => m.provider === host && m.modelType === 'llm').length >= 2]).toEqual([host, true]);
      }
    });

    it('has unique ids, names and slugs, with slugs derived from names', () => {
      for (const field of ['id', 'name', 'slug'] as const) {
        const values = catalog.models.map((m) => m[field]);
        expect(new Set(values).size).toBe(values.length);
      }
      for (const model of catalog.models) expect(model.slug).toBe(slugify(model.name));
    });

    it('names hosted models <provider>/<provider model id> and first-party ones by the provider id', () => {
      expect(byId('groq/llama-3.3-70b-versatile')).toMatchObject({
        provider: 'groq',
        maker: 'meta',
        providerModelId: 'llama-3.3-70b-versatile',
      });
      expect(byId('ollama/gpt-oss:20b')).toMatchObject({ provider: 'ollama', maker: 'openai', providerModelId: 'gpt-oss:20b' });
      expect(byId('claude-sonnet-5-5')).toMatchObject({ provider: 'anthropic', maker: 'anthropic', providerModelId: 'claude-sonnet-5-5' });
    });

    it('carries the capability flags we are sure of', () => {
      expect(byId('gpt-4o-mini')).toMatchObject({
        isVision: true,
        isReasoning: false,
        isToolCalling: true,
        isJsonSchema: true,
        contextLimit: 128000,
      });
      expect(byId('o3')).toMatchObject({ isReasoning: true, isVision: true });
      expect(byId('deepseek-reasoner')).toMatchObject({ isReasoning: true, isVision: false });
      expect(byId('deepseek-chat')).toMatchObject({ isReasoning: false, isVision: false });
      expect(byId('gpt-4.1')).toMatchObject({ isReasoning: false, contextLimit: 1047576 });
      expect(byId('claude-3-7-sonnet-latest')).toMatchObject({ isReasoning: true, status: 'deprecated' });
      expect(byId('gemini-2.5-flash-lite')).toMatchObject({ isVision: true, isReasoning: true, contextLimit: 1048576 });
      expect(byId('groq/openai/gpt-oss-120b')).toMatchObject({ isReasoning: true, isVision: false, maker: 'openai' });
      expect(byId('ollama/llama3.2')).toMatchObject({ isVision: false, isToolCalling: true });
      expect(byId('gpt-4-0314')).toMatchObject({ isToolCalling: false, status: 'deprecated' });
    });

    it('types image generation and embedding models without llm-only capabilities', () => {
      expect(byId('text-embedding-3-small')).toMatchObject({ modelType: 'embedding', contextLimit: 8191 });
      expect(byId('gemini-embedding-001').modelType).toBe('embedding');
      expect(byId('mistral-embed').modelType).toBe('embedding');
      expect(byId('dall-e-3')).toMatchObject({ modelType: 'image_generation', isVision: false, status: 'deprecated', slug: 'dall-e-3' });
      expect(byId('gpt-image-1')).toMatchObject({ modelType: 'image_generation', isVision: true });
      for (const model of catalog.models.filter((m) => m.modelType !== 'llm')) {
        expect([model.id, model.isToolCalling, model.isReasoning, model.isJsonSchema]).toEqual([model.id, false, false, false]);
      }
    });

    it('prices every model, local models at 0, with cache prices no higher than Anthropic-style writes', () => {
      for (const model of catalog.models) {
        expect(model.pricing.price_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(model.pricing.cached_input).toBeLessThanOrEqual(model.pricing.input);
      }
      expect(byId('universal-sentence-encoder-lite').pricing).toMatchObject({ input: 0, output: 0 });
      expect(byId('ollama/llama3.2').pricing).toMatchObject({ input: 0, output: 0 });
      expect(byId('claude-sonnet-5-5').pricing).toEqual({
        input: 3,
        cached_input: 0.3,
        cache_write: 3.75,
        output: 15,
        reasoning: null,
        price_version: '2026-11-21',
      });
    });

    it('keeps retired models stored as deprecated', () => {
      for (const id of ['gpt-4o-mini', 'claude-2.1', 'claude-instant-1.2', 'gemini-1.0-pro', 'gpt-4-0314', 'grok-4']) {
        expect([id, byId(id).status]).toEqual([id, 'deprecated']);
      }
    });
  });

  describe('slugify', () => {
    it.each([
      ['GPT-4o mini', 'gpt-4o-mini'],
      ['Claude Sonnet 4.5', 'claude-sonnet-4-5'],
      ['Llama 3.3 70B (Groq)', 'llama-3-3-70b-groq'],
      ['  --Gemini 3.1 Pro (preview)--  ', 'gemini-3-1-pro-preview'],
      ['DALL·E 3', 'dall-e-3'],
      ['Mistral Médium', 'mistral-medium'],
      ['***', ''],
    ])('%j -> %j', (name, slug) => {
      expect(slugify(name)).toBe(slug);
    });
  });

  describe('parseModelCatalog', () => {
    it('accepts a minimal valid file and maps snake_case keys to the camelCase shape', () => {
      const hosted = modelYaml({
        id: 'groq/llama-3.3-70b-versatile',
        name: 'Llama 3.3 70B (Groq)',
        provider: 'groq',
        maker: 'meta',
        provider_model_id: 'llama-3.3-70b-versatile',
        vision: 'false',
        json_schema: 'false',
        context_limit: '0',
      });
      const catalog = parseModelCatalog(HEADER + modelYaml() + hosted);
      expect(catalog.version).toBe('2026.11.1');
      expect(catalog.providers).toEqual([
        { key: 'openai', name: 'OpenAI', api: 'openai' },
        { key: 'groq', name: 'Groq', api: 'openai-compatible' },
      ]);
      expect(catalog.makers).toEqual([
        { key: 'openai', name: 'OpenAI' },
        { key: 'meta', name: 'Meta' },
      ]);
      expect(catalog.models[0]).toEqual({
        id: 'gpt-4o-mini',
        name: 'GPT-4o mini',
        slug: 'gpt-4o-mini',
        provider: 'openai',
        maker: 'openai',
        providerModelId: 'gpt-4o-mini',
        modelType: 'llm',
        contextLimit: 128000,
        isVision: true,
        isReasoning: false,
        isToolCalling: true,
        isJsonSchema: true,
        status: 'active',
        pricing: { input: 0.15, cached_input: 0.075, cache_write: 0.15, output: 0.6, reasoning: null, price_version: '2026-11-21' },
      });
      expect(catalog.models[1]).toMatchObject({ id: 'groq/llama-3.3-70b-versatile', slug: 'llama-3-3-70b-groq', contextLimit: 0 });
    });

    it('reads an optional reasoning price (null when not billed apart)', () => {
      const pricing = "{ input: 1, cached_input: 0.1, cache_write: 1.25, output: 4, reasoning: 3.5, price_version: 'v2' }";
      expect(parseModelCatalog(HEADER + modelYaml({ pricing })).models[0].pricing).toEqual({
        input: 1,
        cached_input: 0.1,
        cache_write: 1.25,
        output: 4,
        reasoning: 3.5,
        price_version: 'v2',
      });
      const unbilled = "{ input: 1, cached_input: 0.1, cache_write: 1.25, output: 4, reasoning: null, price_version: 'v2' }";
      expect(parseModelCatalog(HEADER + modelYaml({ pricing: unbilled })).models[0].pricing.reasoning).toBeNull();
    });

    it('rejects a model without pricing', () => {
      expect(problemsOf(HEADER + modelYaml({ pricing: undefined }))).toEqual([
        expect.stringMatching(/^models\[0\] \(gpt-4o-mini\): missing field pricing/),
      ]);
    });

    it('lists every problem of a bad pricing at once', () => {
      const pricing = "{ input: -1, cached_input: '0.1', output: 0.0000001, reasoning: .inf, price_version: ' bad', per_image: 1 }";
      expect(problemsOf(HEADER + modelYaml({ pricing }))).toEqual([
        'models[0] (gpt-4o-mini).pricing: unknown key "per_image" (allowed: input, cached_input, cache_write, output, reasoning, price_version)',
        'models[0] (gpt-4o-mini).pricing: input must be a number of USD per million tokens from 0 to 100000 with at most 6 decimals, got number -1',
        'models[0] (gpt-4o-mini).pricing: cached_input must be a number of USD per million tokens from 0 to 100000 with at most 6 decimals, got "0.1"',
        'models[0] (gpt-4o-mini).pricing: missing field cache_write',
        'models[0] (gpt-4o-mini).pricing: output must be a number of USD per million tokens from 0 to 100000 with at most 6 decimals, got number 1e-7',
        'models[0] (gpt-4o-mini).pricing: reasoning must be a number of USD per million tokens from 0 to 100000 with at most 6 decimals, got number Infinity',
        'models[0] (gpt-4o-mini).pricing: price_version must not start or end with whitespace',
      ]);
      expect(problemsOf(HEADER + modelYaml({ pricing: '12' }))).toEqual([
        'models[0] (gpt-4o-mini).pricing: must be a mapping with input, cached_input, cache_write, output, reasoning, price_version, got number 12',
      ]);
      expect(
        problemsOf(HEADER + modelYaml({ pricing: "{ input: 1, cached_input: 1, cache_write: 1, output: 1, price_version: 'a b' }" })),
      ).toEqual([expect.stringContaining('price_version must be a short label')]);
    });

    it('rejects an unknown provider key', () => {
      expect(problemsOf(HEADER + modelYaml({ provider: 'azure', id: 'azure/gpt-4o-mini' }))).toEqual([
        expect.stringContaining('unknown provider "azure"'),
      ]);
    });

    it('rejects an unknown maker key', () => {
      expect(problemsOf(HEADER + modelYaml({ maker: 'acme', id: 'openai/gpt-4o-mini' }))).toEqual([
        expect.stringContaining('unknown maker "acme"'),
      ]);
    });

    it('rejects a duplicate id (and the duplicate name and slug that come with it)', () => {
      const problems = problemsOf(HEADER + modelYaml() + modelYaml());
      expect(problems).toContainEqual(
        expect.stringMatching(/models\[1\] \(gpt-4o-mini\): duplicate id "gpt-4o-mini" \(first used by models\[0\]\)/),
      );
      expect(problems).toContainEqual(expect.stringContaining('duplicate name "GPT-4o mini"'));
      expect(problems).toContainEqual(expect.stringContaining('duplicate slug "gpt-4o-mini"'));
    });

    it('rejects two names that differ only in punctuation (duplicate slug)', () => {
      const other = modelYaml({ id: 'gpt-4o', provider_model_id: 'gpt-4o', name: 'GPT 4o  Mini' });
      expect(problemsOf(HEADER + modelYaml() + other)).toEqual([expect.stringContaining('duplicate slug "gpt-4o-mini"')]);
    });

    it('rejects a bad model_type and a bad status', () => {
      const problems = problemsOf(HEADER + modelYaml({ model_type: 'chat', status: 'retired' }));
      expect(problems).toContainEqual(expect.stringContaining('model_type must be one of llm, image_generation, embedding, got "chat"'));
      expect(problems).toContainEqual(expect.stringContaining('status must be one of active, deprecated, got "retired"'));
    });

    it.each([
      ['-1', 'number -1'],
      ['1.5', 'number 1.5'],
      ['"128000"', '"128000"'],
      ['128_000', '"128_000"'],
      ['3000000000', 'number 3000000000'],
    ])('rejects context_limit %s', (value, shown) => {
      expect(problemsOf(HEADER + modelYaml({ context_limit: value }))).toEqual([
        expect.stringContaining(`context_limit must be a non-negative integer up to 2147483647 (0 when unknown), got ${shown}`),
      ]);
    });

    it('rejects a missing field', () => {
      expect(problemsOf(HEADER + modelYaml({ provider_model_id: undefined }))).toEqual([
        expect.stringContaining('models[0] (gpt-4o-mini): missing field provider_model_id'),
      ]);
      expect(problemsOf(HEADER + modelYaml({ json_schema: undefined }))).toEqual([expect.stringContaining('missing field json_schema')]);
    });

    it('rejects non-boolean flags', () => {
      const problems = problemsOf(HEADER + modelYaml({ vision: 'yes', reasoning: '1' }));
      expect(problems).toContainEqual(expect.stringContaining('vision must be true or false, got "yes"'));
      expect(problems).toContainEqual(expect.stringContaining('reasoning must be true or false, got number 1'));
    });

    it('rejects tool calling (and other llm-only flags) on image generation and embedding models', () => {
      const image = modelYaml({
        id: 'gpt-image-1',
        name: 'GPT Image 1',
        provider_model_id: 'gpt-image-1',
        model_type: 'image_generation',
        json_schema: 'false',
      });
      const embedding = modelYaml({
        id: 'text-embedding-3-small',
        name: 'Embed',
        provider_model_id: 'text-embedding-3-small',
        model_type: 'embedding',
        tool_calling: 'false',
        reasoning: 'true',
        json_schema: 'false',
      });
      const problems = problemsOf(HEADER + image + embedding);
      expect(problems).toEqual([
        expect.stringContaining('(gpt-image-1): tool_calling must be false for image_generation models'),
        expect.stringContaining('(text-embedding-3-small): reasoning must be false for embedding models'),
      ]);
    });

    it('rejects unknown keys at every level', () => {
      const text =
        HEADER.replace('makers:', 'extra: 1\nmakers:').replace('api: openai }', 'api: openai, base_url: x }') + modelYaml({ price: '3' });
      const problems = problemsOf(text);
      expect(problems).toContainEqual(expect.stringContaining('top level: unknown key "extra"'));
      expect(problems).toContainEqual(expect.stringContaining('providers.openai: unknown key "base_url"'));
      expect(problems).toContainEqual(expect.stringContaining('models[0] (gpt-4o-mini): unknown key "price"'));
    });

    it('rejects a provider with an unsupported api and an id that breaks the naming rule', () => {
      const text = HEADER.replace('api: openai-compatible', 'api: grpc') + modelYaml({ id: 'GPT4oMini' });
      const problems = problemsOf(text);
      expect(problems).toContainEqual(
        expect.stringContaining('providers.groq.api: must be one of openai, anthropic, google, openai-compatible, local, got "grpc"'),
      );
      expect(problems).toContainEqual(expect.stringContaining('models[0] (GPT4oMini): id must be "gpt-4o-mini"'));
    });

    it('lists every problem of the file at once', () => {
      const text =
        HEADER +
        modelYaml({ provider: 'azure', id: 'azure/gpt-4o-mini' }) +
        modelYaml({ id: 'o3', name: 'o3', provider_model_id: 'o3', context_limit: '-5' }) +
        modelYaml({ id: 'o4-mini', name: 'o4-mini', provider_model_id: 'o4-mini', status: undefined });
      const error = (() => {
        try {
          parseModelCatalog(text);
        } catch (caught: unknown) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ModelCatalogFileError);
      const { problems, message } = error as ModelCatalogFileError;
      expect(problems).toHaveLength(3);
      expect(message).toContain('Invalid model catalog file (3 problems)');
      for (const problem of problems) expect(message).toContain(problem);
    });

    it('rejects a missing or unquoted numeric version and missing sections', () => {
      expect(problemsOf(HEADER.replace('version: "2026.11.1"', 'version: 2026.11') + modelYaml())).toEqual([
        expect.stringContaining('version: must be a non-empty string (quote it), got number 2026.11'),
      ]);
      expect(problemsOf(HEADER.replace('version: "2026.11.1"', 'version: "2026-11"') + modelYaml())).toEqual([
        expect.stringContaining('version: must be dot-separated numbers such as "2026.11.1"'),
      ]);
      expect(problemsOf('version: "1"\n')).toEqual(['providers: missing', 'makers: missing', 'models: missing']);
    });

    it('rejects YAML syntax errors and duplicate mapping keys', () => {
      expect(problemsOf('version: "1"\nproviders: [\n')[0]).toMatch(/^YAML: /);
      expect(problemsOf(HEADER + modelYaml().replace('    vision: true\n', '    vision: true\n    vision: false\n'))).toEqual([
        expect.stringMatching(/^YAML: .*unique/i),
      ]);
      expect(problemsOf('- just\n- a list\n')).toEqual([expect.stringContaining('must be a mapping')]);
    });
  });
});
