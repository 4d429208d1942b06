import { errorMessage, nestedMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import type { ModelRoute } from './catalog.patterns';

/** What a run asks of every model that may answer it (D41: checked when a definition is applied). */
export interface RunNeeds {
  /** It sends images. */
  images?: boolean;
  /** It offers tools (an agent with tools). */
  tools?: boolean;
  /** It sets a response_format. */
  jsonSchema?: boolean;
}

const CAPABILITIES = [
  { need: 'images', flag: 'is_vision', text: 'capability_vision' },
  { need: 'tools', flag: 'is_tool_calling', text: 'capability_tools' },
  { need: 'jsonSchema', flag: 'is_json_schema', text: 'capability_json_schema' },
] as const;

function fallbackProblem(model: string, route: ModelRoute | null, needs: RunNeeds): ErrorDetail | undefined {
  if (!route) return { detail: 'fallback_not_in_catalog', params: { model } };
  if (route.status === 'deprecated' || route.model_type !== 'llm') return { detail: 'fallback_not_usable', params: { model } };
  for (const { need, flag, text } of CAPABILITIES) {
    if (needs[need] && !(route as unknown as Record<string, boolean | undefined>)[flag])
      return { detail: 'fallback_lacks_capability', params: { model, capability: nestedMessage({ detail: text }) } };
  }
  return undefined;
}

/**
 * Refuses fallbacks that could not stand in for `model`: one the catalog does not know, a
 * deprecated or non-chat model, a repeat, or a model without a capability the run needs
 * (vision for images, tool calls for an agent's tools, native structured output for a
 * response_format). `routes` holds the catalog's entry of each fallback (null when none).
 * The 422 names the first problem; `details` lists each as `<field>[i]`.
 */
export function checkFallbacks(
  field: string,
  model: string,
  fallbacks: readonly string[] | undefined,
  routes: ReadonlyMap<string, ModelRoute | null>,
  needs: RunNeeds,
): void {
  const problems: { field: string; text: ErrorDetail }[] = [];
  (fallbacks ?? []).forEach((fallback, index) => {
    const repeated = fallback === model || fallbacks?.indexOf(fallback) !== index;
    const text: ErrorDetail | undefined = repeated
      ? { detail: 'fallback_repeated', params: { model: fallback } }
      : fallbackProblem(fallback, routes.get(fallback) ?? null, needs);
    if (text) problems.push({ field: `${field}[${index}]`, text });
  });
  if (problems.length === 0) return;
  throw new WaggleException('validation_error', {
    ...problems[0].text,
    details: problems.map(({ field: name, text }) => ({ field: name, messages: [errorMessage(text, 'en')] })),
  });
}

/**
 * A catalog look-up's route, or null when the catalog does not know the model
 * (resource_not_found). Any other failure (the catalog unreachable) still rejects: a check
 * then fails rather than calling every model unknown.
 */
export function knownRoute(route: Promise<ModelRoute>): Promise<ModelRoute | null> {
  return route.catch((error: unknown) => {
    if (error instanceof WaggleException && error.code === 'resource_not_found') return null;
    throw error;
  });
}

/** The catalog's entry of each model id (each asked once, null when unknown): the `routes` checkFallbacks takes. */
export async function catalogRoutes(
  modelIds: Iterable<string>,
  lookup: (modelId: string) => Promise<ModelRoute>,
): Promise<Map<string, ModelRoute | null>> {
  const unique = [...new Set(modelIds)];
  const routes = await Promise.all(unique.map((modelId) => knownRoute(lookup(modelId))));
  return new Map(unique.map((modelId, index) => [modelId, routes[index]]));
}
