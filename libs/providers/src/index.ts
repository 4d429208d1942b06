export { resolveChatRoute, resolveModelChain, type ChatRoute, type ChatRouteNeeds, type ModelChain } from './chat-routes';
export { jsonSchemaOutput, toCallSettings, type CallSettings } from './call-options';
export { abortReason, isAbortError, providerFailure, safeProviderMessage } from './failures';
export { ModelRun } from './model-run';
export {
  addCallCost,
  callCostPicoUsd,
  costOfCall,
  estimatedTokens,
  estimateTokens,
  roundToMicroUsd,
  RunCost,
  tokensOf,
  usageOfTokens,
  type CallTokens,
  type CostPart,
} from './cost';
export { embedTexts } from './embeddings';
export { LOCAL_EMBEDDING_MODELS } from './local-embeddings';
export { complete, stream, type CostSink, type RouteCompletion } from './invoke';
export { ModelRoutes, ROUTE_CACHE_MS } from './model-routes';
export { withPromptCache } from './prompt-cache';
export { PROVIDER_SETTINGS, ProvidersModule, type ProvidersModuleOptions } from './providers.module';
export { compatibleOptionsKey, ProviderRegistry, WORKSPACE_PROVIDER_CACHE_ENTRIES, type ProviderRegistryOptions } from './registry';
export {
  credentialSourceOf,
  invalidWorkspaceCredentials,
  withRunCredentials,
  WORKSPACE_CREDENTIAL_CACHE_ENTRIES,
  WORKSPACE_CREDENTIAL_CACHE_MS,
  WorkspaceCredential,
  WorkspaceCredentialCache,
  type RunCredentials,
  type WorkspaceCredentialLookup,
} from './workspace-credentials';
export {
  DEFAULT_BASE_URLS,
  DEFAULT_MAX_RETRIES,
  isKeylessProvider,
  PROVIDER_KEYS,
  providerApiOf,
  workspaceBaseUrl,
  providerEnvPrefix,
  providerEnvVariables,
  providerSettingsFromEnv,
  resolveEndpoint,
  type ProviderEndpoint,
  type ProviderEnv,
  type ProviderKey,
  type ProviderSettings,
} from './settings';
export {
  toModelRoute,
  toPromptParams,
  type CallCost,
  type CompletionResult,
  type EmbeddingCall,
  type EmbeddingResult,
  type AttemptErrorCode,
  type JsonSchemaResponseFormat,
  type ModelAttempt,
  type ModelRoute,
  type PromptCall,
  type PromptMessage,
  type PromptCacheOptions,
  type PromptParams,
  type ProviderApi,
  type ReasoningEffort,
  type SpecPromptParams,
  type SpecUsage,
  type StopReason,
  type StreamPart,
  type ToolCall,
  type ToolChoice,
  type ToolDefinition,
  type ToolResult,
} from './types';
export { toolResultsMessage } from './tools';
export { addUsage, toSpecUsage, toStopReason, ZERO_USAGE } from './usage';
export { routeProviderWarnings, type ProviderWarningLogger } from './warnings';
export {
  BraveSearchProvider,
  createWebSearchProvider,
  decodeHtmlEntities,
  DEFAULT_BRAVE_SEARCH_BASE_URL,
  DEFAULT_SCRAPE_MAX_BYTES,
  DEFAULT_SCRAPE_MAX_CHARS,
  DEFAULT_TAVILY_BASE_URL,
  DEFAULT_WEB_TOOL_TIMEOUT_MS,
  errorCodeOf,
  htmlSnippetToText,
  MAX_SEARCH_RESPONSE_BYTES,
  MAX_WEB_SEARCH_RESULTS,
  SearxngSearchProvider,
  TavilySearchProvider,
  WEB_SEARCH_PROVIDERS,
  WebToolError,
  type WebSearchProvider,
  type WebSearchProviderName,
  type WebSearchQuery,
  type WebSearchResult,
  type WebToolErrorCode,
  type WebToolSettings,
} from './web';
