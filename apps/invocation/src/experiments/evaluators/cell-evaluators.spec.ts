import type { ModelRoute as CatalogRoute } from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import { ProviderRegistry, providerSettingsFromEnv, type ModelRoutes } from '@waggle/providers';
import { CellEvaluators, type CellOutcome, type EvaluationContext } from './cell-evaluators';
import type { LlmJudge } from './llm-judge';
import { EmbeddingSimilarity } from './similarity';

function route(id: string, extra: Partial<CatalogRoute> = {}): CatalogRoute {
  return {
    id,
    name: id,
    provider: 'openai',
    provider_name: 'OpenAI',
    provider_api: 'openai',
    provider_model_id: id,
    model_type: 'llm',
    is_vision: false,
    is_tool_calling: true,
    is_json_schema: true,
    context_limit: 128_000,
    status: 'active',
    pricing: null,
    ...extra,
  };
}

/** The catalog as the evaluators read it (ModelRoutes' one method): these models, resource_not_found for others. */
const CATALOG: Record<string, CatalogRoute> = {
  'gpt-4o-mini': route('gpt-4o-mini'),
  'gpt-3-old': route('gpt-3-old', { status: 'deprecated' }),
  'text-embedding-3-small': route('text-embedding-3-small', { model_type: 'embedding' }),
  'claude-3-5-haiku': route('claude-3-5-haiku', { provider: 'anthropic', provider_name: 'Anthropic', provider_api: 'anthropic' }),
  'universal-sentence-encoder-lite': route('universal-sentence-encoder-lite', {
    provider: 'local',
    provider_name: 'Waggle (local)',
    provider_api: 'local',
    model_type: 'embedding',
  }),
};
const routes = {
  get: (id: string) =>
    CATALOG[id]
      ? Promise.resolve(CATALOG[id])
      : Promise.reject(new WaggleException('resource_not_found', { detail: 'model_not_found', params: { id } })),
} as unknown as ModelRoutes;

/** OpenAI configured, Anthropic not. */
const registry = new ProviderRegistry(providerSettingsFromEnv({ OPENAI_API_KEY: 'sk-test' }));
const judge = { judge: jest.fn() };

function evaluators(embeddingModel = 'universal-sentence-encoder-lite'): CellEvaluators {
  const similarity = new EmbeddingSimilarity(registry, routes, { EXPERIMENT_EMBEDDING_MODEL: embeddingModel });
  return new CellEvaluators(registry, routes, judge as unknown as LlmJudge, similarity);
}

/** The refusal of check(): each field with its English message. */
async function refusal(specs: unknown, embeddingModel?: string): Promise<Array<[string, string]>> {
  const error = await evaluators(embeddingModel)
    .check(specs)
    .then(() => undefined)
    .catch((caught: unknown) => caught);
  expect(error).toMatchObject({ code: 'validation_error', status: 422 });
  const { details } = error as { details: Array<{ field: string; messages: ErrorDetail[] }> };
  return details.map(({ field, messages }) => [field, errorMessage(messages[0], 'en')]);
}

const context = (signal = new AbortController().signal): EvaluationContext => ({
  workspaceId: 'ws',
  experimentRunId: 'run',
  cellRequestId: 'req',
  signal,
});

describe('CellEvaluators', () => {
  afterAll(() => registry.onModuleDestroy());
  beforeEach(() => judge.judge.mockReset());

  describe('check', () => {
    it('answers the specs with their names filled in when the judge and embedding models can be used', async () => {
      await expect(
        evaluators().check([
          { type: 'llm_judge', rubric: 'Is it polite?', model: 'gpt-4o-mini' },
          { type: 'similarity', threshold: 0.7, name: 'close' },
        ]),
      ).resolves.toEqual([
        { type: 'llm_judge', name: 'llm_judge', rubric: 'Is it polite?', model: 'gpt-4o-mini' },
        { type: 'similarity', name: 'close', threshold: 0.7 },
      ]);
    });

    it("refuses a judge's model that is unknown, deprecated, not a chat model or not configured, naming its field", async () => {
      const judgeOf = (model: string, name: string) => ({ type: 'llm_judge', name, rubric: 'r', model });
      expect(
        await refusal([
          judgeOf('gpt-4o-mini', 'fine'),
          judgeOf('no-such-model', 'a'),
          judgeOf('gpt-3-old', 'b'),
          judgeOf('text-embedding-3-small', 'c'),
          judgeOf('claude-3-5-haiku', 'd'),
        ]),
      ).toEqual([
        ['evaluators[1].model', 'no-such-model is not in the model catalog'],
        ['evaluators[2].model', 'gpt-3-old is deprecated'],
        ['evaluators[3].model', 'text-embedding-3-small is not a chat model'],
        ['evaluators[4].model', expect.stringMatching(/^claude-3-5-haiku cannot be called here: .*Anthropic/)],
      ]);
    });

    it('refuses similarity when the embedding model cannot be used, saying which and why', async () => {
      const similarity = [{ type: 'exact' }, { type: 'similarity', threshold: 0.5 }];
      expect(await refusal(similarity, 'gpt-4o-mini')).toEqual([
        [
          'evaluators[1]',
          'similarity needs the embedding model gpt-4o-mini (EXPERIMENT_EMBEDDING_MODEL), which cannot be used: it is not an embedding model',
        ],
      ]);
      expect(await refusal(similarity, 'gone-embedder')).toEqual([
        [
          'evaluators[1]',
          'similarity needs the embedding model gone-embedder (EXPERIMENT_EMBEDDING_MODEL), which cannot be used: gone-embedder is not in the model catalog',
        ],
      ]);
    });

    it('refuses the shape before asking the catalog', async () => {
      const get = jest.spyOn(routes, 'get');
      expect(await refusal([{ type: 'llm_judge', rubric: '', model: 'gpt-4o-mini' }])).toEqual([
        ['evaluators[0].rubric', 'must be text of 1 to 10000 characters'],
      ]);
      expect(get).not.toHaveBeenCalled();
      get.mockRestore();
    });

    it("passes on an outage of the catalog as it is (not the run's problem)", async () => {
      const down = { get: () => Promise.reject(new WaggleException('upstream_request_failed', { status: 504 })) } as unknown as ModelRoutes;
      const similarity = new EmbeddingSimilarity(registry, down, { EXPERIMENT_EMBEDDING_MODEL: 'x' });
      const checking = new CellEvaluators(registry, down, judge as unknown as LlmJudge, similarity);
      await expect(checking.check([{ type: 'llm_judge', rubric: 'r', model: 'gpt-4o-mini' }])).rejects.toMatchObject({
        code: 'upstream_request_failed',
      });
      await expect(checking.check([{ type: 'similarity', threshold: 0.1 }])).rejects.toMatchObject({ code: 'upstream_request_failed' });
    });
  });

  describe('evaluate', () => {
    const outcome: CellOutcome = {
      output: 'Refunds take 14 days.',
      text: 'Refunds take 14 days.',
      expected_output: '14 days',
      latency_ms: 120,
      cost_micros: 30,
    };

    it('answers one named result per spec, in order', async () => {
      judge.judge.mockResolvedValue({ score: 0.9, passed: true, reason: 'polite' });
      const specs = await evaluators().check([
        { type: 'contains' },
        { type: 'exact', name: 'exactly' },
        { type: 'regex', value: '\\d+ days' },
        { type: 'json_schema', schema: { type: 'object' } },
        { type: 'max_latency_ms', value: 100 },
        { type: 'max_cost', value: 0.001 },
        { type: 'llm_judge', rubric: 'Polite?', model: 'gpt-4o-mini' },
      ]);
      const results = await evaluators().evaluate(specs, outcome, context());
      expect(results.map(({ evaluator, type, score, passed }) => ({ evaluator, type, score, passed }))).toEqual([
        { evaluator: 'contains', type: 'contains', score: 1, passed: true },
        { evaluator: 'exactly', type: 'exact', score: 0, passed: false },
        { evaluator: 'regex', type: 'regex', score: 1, passed: true },
        { evaluator: 'json_schema', type: 'json_schema', score: 0, passed: false },
        { evaluator: 'max_latency_ms', type: 'max_latency_ms', score: 0, passed: false },
        { evaluator: 'max_cost', type: 'max_cost', score: 1, passed: true },
        { evaluator: 'llm_judge', type: 'llm_judge', score: 0.9, passed: true },
      ]);
      expect(judge.judge).toHaveBeenCalledWith(
        'Polite?',
        'gpt-4o-mini',
        { text: outcome.text, expected_output: '14 days' },
        expect.objectContaining({ experimentRunId: 'run', cellRequestId: 'req' }),
      );
    });

    it("is 'no expected output' for similarity without a value or an expected output, without embedding anything", async () => {
      const [result] = await evaluators('gone-embedder').evaluate(
        [{ type: 'similarity', name: 'similarity', threshold: 0.5 }],
        { ...outcome, expected_output: null },
        context(),
      );
      expect(result).toEqual({ evaluator: 'similarity', type: 'similarity', score: 0, passed: false, reason: 'no expected output' });
    });

    it("gives a failed similarity as its result (the embedding model's catalog code), not a rejection", async () => {
      const [result] = await evaluators('gone-embedder').evaluate([{ type: 'similarity', threshold: 0.5 }], outcome, context());
      expect(result).toEqual({
        evaluator: 'similarity',
        type: 'similarity',
        score: 0,
        passed: false,
        reason: 'similarity failed: resource_not_found',
      });
    });

    it('rejects with the reason of an aborted signal', async () => {
      const controller = new AbortController();
      controller.abort(new Error('cancelled'));
      await expect(evaluators().evaluate([{ type: 'exact' }], outcome, context(controller.signal))).rejects.toThrow('cancelled');
    });
  });
});
