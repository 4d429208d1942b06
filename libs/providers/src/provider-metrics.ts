import { WaggleException } from '@waggle/errors';
import { secondsSince, waggleMetrics } from '@waggle/telemetry';
import { abortReason, providerFailure } from './failures';
import type { ModelRoute } from './types';

/** How a provider call ended: `aborted` is the caller's doing (a client gone, a run cancelled or timed out), not the provider's. */
export type ProviderOutcome = 'ok' | 'error' | 'aborted';

/**
 * Records one provider call, at the one place every prompt run, agent turn, workflow step and
 * embedding goes through (complete, stream, embedTexts): its latency by provider, catalog model
 * and outcome, the tokens the provider counted, and a failure's catalog code. Labels come from
 * the catalog, so their number stays bounded.
 */
export function recordProviderCall(
  route: ModelRoute,
  startedAt: number,
  ended: { outcome: ProviderOutcome; inputTokens?: number; outputTokens?: number; error?: unknown },
): void {
  const instruments = waggleMetrics();
  const { provider, modelId: model } = route;
  instruments.providerDuration.record(secondsSince(startedAt), { provider, model, outcome: ended.outcome });
  if (ended.inputTokens) instruments.providerTokens.add(ended.inputTokens, { provider, model, type: 'input' });
  if (ended.outputTokens) instruments.providerTokens.add(ended.outputTokens, { provider, model, type: 'output' });
  if (ended.outcome === 'error') {
    const errorCode = ended.error instanceof WaggleException ? ended.error.code : 'provider_error';
    instruments.providerErrors.add(1, { provider, model, error_code: errorCode });
  }
}

/**
 * A whole call's failure, recorded, as what the call rejects with: the signal's reason when
 * the caller aborted, otherwise the provider_error (or config_error) it was.
 */
export function recordedCallFailure(error: unknown, route: ModelRoute, startedAt: number, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) {
    recordProviderCall(route, startedAt, { outcome: 'aborted' });
    return abortReason(signal);
  }
  const failure = providerFailure(error, route);
  recordProviderCall(route, startedAt, { outcome: 'error', error: failure });
  return failure;
}
