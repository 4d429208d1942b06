export { jsonSchemaOutput, toCallSettings, type CallSettings } from './call-options';
export { abortReason, isAbortError, providerFailure, safeProviderMessage } from './failures';
export { complete, stream } from './invoke';
export { compatibleOptionsKey, ProviderRegistry } from './registry';
export {
  DEFAULT_BASE_URLS,
  DEFAULT_MAX_RETRIES,
  providerEnvPrefix,
  providerSettingsFromEnv,
  resolveEndpoint,
  type ProviderEndpoint,
  type ProviderSettings,
} from './settings';
export {
  toModelRoute,
  type CompletionResult,
  type JsonSchemaResponseFormat,
  type ModelRoute,
  type PromptCall,
  type PromptMessage,
  type PromptParams,
  type ProviderApi,
  type ReasoningEffort,
  type SpecUsage,
  type StopReason,
  type StreamPart,
} from './types';
export { toSpecUsage, toStopReason } from './usage';
export { routeProviderWarnings, type ProviderWarningLogger } from './warnings';
