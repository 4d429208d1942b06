import { nestedMessage, WaggleException, type NestedMessage } from '@waggle/errors';

/**
 * Why the catalog or the provider layer refused a model an evaluator names, as a message to
 * nest in the evaluator's refusal: not in the catalog, or a config_error (wrong kind of model,
 * provider not configured). Anything else (the catalog not answering) is an outage, not the
 * run's problem, and is thrown as it is.
 */
export function catalogRefusal(error: unknown, model: string): NestedMessage | string {
  if (!(error instanceof WaggleException)) throw error;
  if (error.code === 'resource_not_found') return nestedMessage({ detail: 'evaluator_model_unknown', params: { model } });
  if (error.code !== 'config_error') throw error;
  // The exception's own message id and parameters, rendered in the reader's language.
  return error.detail ? ({ detail: error.detail, ...(error.params && { params: error.params }) } as NestedMessage) : error.message;
}
