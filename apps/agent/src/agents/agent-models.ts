import { Injectable } from '@nestjs/common';
import { catalogRoutes, CatalogPatterns, checkFallbacks, knownRoute, send, type ModelRoute } from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';

function invalidModel(field: 'llm_model' | 'model_type', text: ErrorDetail): WaggleException {
  const message = errorMessage(text, 'en');
  return new WaggleException('validation_error', { ...text, details: [{ field: `agent.${field}`, messages: [message] }] });
}

/**
 * Why an agent cannot run on `llmModel` declared as `modelType`, or null when it can
 * (decisions: `model_type` must equal the catalog entry's, and an agent needs an `llm`
 * model). `route` is the catalog's entry, null when the catalog has none. Every refusal is
 * a 422 whose `error` names the model.
 */
export function agentModelProblem(route: ModelRoute | null, llmModel: string, modelType: string): WaggleException | null {
  if (!route) return invalidModel('llm_model', { detail: 'llm_model_not_in_catalog', params: { model: llmModel } });
  if (route.status === 'deprecated') return new WaggleException('model_deprecated', { params: { model: llmModel } });
  if (route.model_type !== 'llm')
    return invalidModel('llm_model', { detail: 'llm_model_wrong_type', params: { model: llmModel, model_type: route.model_type } });
  if (modelType !== route.model_type)
    return invalidModel('model_type', {
      detail: 'llm_model_type_mismatch',
      params: { model: llmModel, model_type: route.model_type, declared: modelType },
    });
  return null;
}

/** Checks an agent's model and its fallbacks against the catalog service over NATS. */
@Injectable()
export class AgentModels {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** The catalog's entry of a model, null when the catalog does not know it. */
  route(modelId: string): Promise<ModelRoute | null> {
    return knownRoute(this.lookup(modelId));
  }

  /** The model's catalog route when an agent can use it as declared; otherwise the 422 of agentModelProblem. */
  async check(llmModel: string, modelType: string): Promise<ModelRoute> {
    const route = await this.route(llmModel);
    const problem = agentModelProblem(route, llmModel, modelType);
    if (problem) throw problem;
    // agentModelProblem refuses a missing route, so here there is one.
    return route as ModelRoute;
  }

  /**
   * Refuses fallbacks that could not stand in for the agent's model (D41): each must be an
   * active chat model of the catalog that can do what a run of the agent may ask of its own
   * model (see images when it can, call tools when it can) and, with a response format,
   * answer to a schema natively. `primary` is the agent's model's entry.
   */
  async checkFallbacks(primary: ModelRoute | null, llmModel: string, fallbacks: readonly string[], jsonSchema: boolean): Promise<void> {
    if (fallbacks.length === 0) return;
    const routes = await catalogRoutes(fallbacks, (modelId) => this.lookup(modelId));
    checkFallbacks('agent.fallbacks', llmModel, fallbacks, routes, {
      images: primary?.is_vision ?? false,
      tools: primary?.is_tool_calling ?? false,
      jsonSchema,
    });
  }

  private lookup(modelId: string): Promise<ModelRoute> {
    return send(this.rpc, CatalogPatterns.getModelRoute, { model_id: modelId });
  }
}
