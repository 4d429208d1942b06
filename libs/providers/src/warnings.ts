import type { LogWarningsFunction } from 'ai';

export type ProviderWarningLogger = LogWarningsFunction;

/**
 * Sends the AI SDK's per-call warnings (a parameter the model ignores, a compatibility mode)
 * to the service's logger, or drops them with `false`. Left alone, the SDK prints them with
 * `console`, outside the services' JSON log lines. The setting is process-wide, as the SDK's is.
 */
export function routeProviderWarnings(log: ProviderWarningLogger | false): void {
  globalThis.AI_SDK_LOG_WARNINGS = log;
}
