import type { ModelRoute } from '@waggle/contracts';
import { toErrorBody } from '@waggle/errors';
import { agentModelProblem } from './agent-models';

const route = (extra: Partial<ModelRoute> = {}): ModelRoute => ({
  id: 'gpt-6-luna',
  name: 'GPT-6 Luna',
  provider: 'openai',
  provider_name: 'OpenAI',
  provider_api: 'openai',
  provider_model_id: 'gpt-6-luna',
  model_type: 'llm',
  is_vision: true,
  is_tool_calling: true,
  is_json_schema: true,
  context_limit: 128_000,
  status: 'active',
  pricing: null,
  ...extra,
});

/** The answer a client gets, in English. */
const answer = (problem: ReturnType<typeof agentModelProblem>) =>
  problem ? { status: problem.status, body: toErrorBody(problem, 'en') } : null;

describe('agentModelProblem (decisions: model_type must equal the catalog entry, and an agent needs an llm model)', () => {
  it('accepts an active llm model declared as llm', () => {
    expect(agentModelProblem(route(), 'gpt-6-luna', 'llm')).toBeNull();
  });

  it('refuses a model the catalog does not have, naming it', () => {
    const message = 'Invalid LLM model: no-such-model is not in the model catalog';
    expect(answer(agentModelProblem(null, 'no-such-model', 'llm'))).toEqual({
      status: 422,
      body: {
        error: message,
        message,
        error_code: 'validation_error',
        code: 'validation_error',
        details: [{ field: 'agent.llm_model', messages: [message] }],
      },
    });
  });

  it('refuses a model that is not an llm, naming it, whatever model_type says', () => {
    for (const [type, declared] of [
      ['image_generation', 'image_generation'],
      ['embedding', 'llm'],
    ] as const) {
      const message = `Invalid LLM model: m is a ${type} model, and an agent needs an llm model`;
      expect(answer(agentModelProblem(route({ model_type: type }), 'm', declared))).toMatchObject({
        status: 422,
        body: { error: message, error_code: 'validation_error', details: [{ field: 'agent.llm_model' }] },
      });
    }
  });

  it("refuses a model_type that differs from the catalog's, on the model_type field", () => {
    const message = 'Invalid LLM model: gpt-6-luna has model_type llm, not chat';
    expect(answer(agentModelProblem(route(), 'gpt-6-luna', 'chat'))).toMatchObject({
      status: 422,
      body: { error: message, error_code: 'validation_error', details: [{ field: 'agent.model_type', messages: [message] }] },
    });
  });

  it('refuses a deprecated model with model_deprecated, naming it', () => {
    expect(answer(agentModelProblem(route({ status: 'deprecated' }), 'gpt-4o', 'llm'))).toEqual({
      status: 422,
      body: {
        error: 'The model gpt-4o is no longer available. Choose another model.',
        message: 'The model gpt-4o is no longer available. Choose another model.',
        error_code: 'model_deprecated',
        code: 'model_deprecated',
      },
    });
  });
});
