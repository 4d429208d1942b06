export { APP_NAMES, DOMAIN_SERVICES, queueGroupOf, type AppName, type DomainService } from './services';
export { HealthPatterns, type HealthPingPattern, type HealthPingRequest, type HealthPingResponse } from './health.patterns';
export { RpcHeaders, type RpcCallContext } from './rpc-headers';
export type { RpcContract, RpcContracts, RpcPattern, RpcRequest, RpcResponse } from './rpc-contracts';
export { sendRpc, streamRpc, type RpcTransport, type SendOptions } from './send';
export {
  ACCOUNT_LANGUAGES,
  API_KEY_PATTERN,
  API_KEY_PREFIX_LENGTH,
  CatalogPatterns,
  CreateWorkspaceRequest,
  LimitsPatch,
  ListModelsRequest,
  LoadModelsRequest,
  MODEL_PROVIDER_VIEWS,
  ModelIdRequest,
  PLAN_LIMIT_NAMES,
  ResolveApiKeyRequest,
  RevokeApiKeyRequest,
  SetPlanLimitsRequest,
  SetWorkspaceLimitsRequest,
  SetWorkspacePlanRequest,
  WorkspaceIdRequest,
  type AccountLanguage,
  type ApiKeySummary,
  type CreatedApiKey,
  type CreatedWorkspace,
  type LoadModelsResponse,
  type ModelRoute,
  type PlanLimitName,
  type PlanLimits,
  type PlanSummary,
  type PublicModel,
  type ResolvedApiKey,
  type WorkspaceSummary,
} from './catalog.patterns';
export {
  ApplyPromptsRequest,
  InvocationPatterns,
  PROMPT_NAME_PATTERN,
  PROMPT_ROLES,
  PromptDeploymentSpec,
  PromptMessageDto,
  PromptParamsDto,
  PromptVariantSpec,
  REASONING_EFFORTS,
  ResponseFormatDto,
  type AppliedDeployment,
  type AppliedVariant,
} from './invocation.patterns';
export { flatMetadataProblem, IsFlatMetadata, METADATA_LIMITS, type FlatMetadata, type MetadataValue } from './flat-metadata';
