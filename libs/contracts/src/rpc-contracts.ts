import type {
  ApiKeySummary,
  CreatedApiKey,
  CreatedWorkspace,
  CreateWorkspaceRequest,
  ListModelsRequest,
  LoadModelsRequest,
  LoadModelsResponse,
  ModelIdRequest,
  ModelRoute,
  PlanSummary,
  PublicModel,
  ResolveApiKeyRequest,
  ResolvedApiKey,
  RevokeApiKeyRequest,
  SetPlanLimitsRequest,
  SetWorkspaceLimitsRequest,
  SetWorkspacePlanRequest,
  WorkspaceIdRequest,
  WorkspaceSummary,
} from './catalog.patterns';
import type {
  DeliveryIdRequest,
  DeliverySummary,
  ListDeliveriesRequest,
  PromptWebhookSecretRequest,
  RepublishedWebhookTarget,
  RepublishWebhookTargetRequest,
  RotatePromptWebhookSecretRequest,
  WebhookSecretView,
} from './webhooks.patterns';
import type { HealthPingPattern, HealthPingRequest, HealthPingResponse } from './health.patterns';
import type { AppliedDeployment, ApplyPromptsRequest, PromptInvokeResponse, PromptRunRequest, PromptStreamEvent, RequestLookup, RequestLookupRequest, ListRequestsRequest, PromptDeploymentSummary, PromptVersionsRequest, PromptVersionSummary } from './invocation.patterns';

type NoPayload = Record<string, never>;

/** A request/reply pattern's payload and answer types, inseparable at the call site. */
export interface RpcContract<Request, Response> {
  request: Request;
  response: Response;
}

/**
 * Every NATS pattern and its types. A pattern missing here cannot be sent through
 * `sendRpc`, and a payload or response of the wrong type does not compile.
 */
export type RpcContracts = {
  [P in HealthPingPattern]: RpcContract<HealthPingRequest, HealthPingResponse>;
} & {
  'catalog.api-keys.resolve': RpcContract<ResolveApiKeyRequest, ResolvedApiKey>;
  'catalog.api-keys.create': RpcContract<WorkspaceIdRequest, CreatedApiKey>;
  'catalog.api-keys.list': RpcContract<WorkspaceIdRequest, ApiKeySummary[]>;
  'catalog.api-keys.revoke': RpcContract<RevokeApiKeyRequest, ApiKeySummary>;
  'catalog.workspaces.create': RpcContract<CreateWorkspaceRequest, CreatedWorkspace>;
  'catalog.workspaces.list': RpcContract<NoPayload, WorkspaceSummary[]>;
  /** A workspace that exists and is not deleted; otherwise `not_found`. */
  'catalog.workspaces.get': RpcContract<WorkspaceIdRequest, WorkspaceSummary>;
  'catalog.workspaces.set-plan': RpcContract<SetWorkspacePlanRequest, WorkspaceSummary>;
  'catalog.workspaces.set-limits': RpcContract<SetWorkspaceLimitsRequest, WorkspaceSummary>;
  'catalog.workspaces.delete': RpcContract<WorkspaceIdRequest, WorkspaceSummary>;
  'catalog.plans.list': RpcContract<NoPayload, PlanSummary[]>;
  'catalog.plans.set': RpcContract<SetPlanLimitsRequest, PlanSummary>;
  'catalog.models.list': RpcContract<ListModelsRequest, PublicModel[]>;
  'catalog.models.load': RpcContract<LoadModelsRequest, LoadModelsResponse>;
  'catalog.models.route': RpcContract<ModelIdRequest, ModelRoute>;
  'invocation.prompts.apply': RpcContract<ApplyPromptsRequest, AppliedDeployment[]>;
  'invocation.prompts.invoke': RpcContract<PromptRunRequest, PromptInvokeResponse>;
  /** Streamed: one value per event. */
  'invocation.prompts.stream': RpcContract<PromptRunRequest, PromptStreamEvent>;
  'invocation.requests.get': RpcContract<RequestLookupRequest, RequestLookup>;
  'invocation.requests.list': RpcContract<ListRequestsRequest, RequestLookup[]>;
  'invocation.prompts.list': RpcContract<WorkspaceIdRequest, PromptDeploymentSummary[]>;
  'invocation.prompts.versions': RpcContract<PromptVersionsRequest, PromptVersionSummary[]>;
  'invocation.prompts.webhook-secret.get': RpcContract<PromptWebhookSecretRequest, WebhookSecretView>;
  'invocation.prompts.webhook-secret.rotate': RpcContract<RotatePromptWebhookSecretRequest, WebhookSecretView>;
  'invocation.prompts.webhook-target.republish': RpcContract<RepublishWebhookTargetRequest, RepublishedWebhookTarget>;
  'callback-dispatcher.deliveries.list': RpcContract<ListDeliveriesRequest, DeliverySummary[]>;
  'callback-dispatcher.deliveries.get': RpcContract<DeliveryIdRequest, DeliverySummary>;
  'callback-dispatcher.deliveries.redeliver': RpcContract<DeliveryIdRequest, DeliverySummary>;
};

export type RpcPattern = keyof RpcContracts;
export type RpcRequest<P extends RpcPattern> = RpcContracts[P]['request'];
export type RpcResponse<P extends RpcPattern> = RpcContracts[P]['response'];
