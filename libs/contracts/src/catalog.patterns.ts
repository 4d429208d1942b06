import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUUID, Length, Matches, Max, Min, ValidateIf } from 'class-validator';
import { WorkspaceIdRequest } from './common.dto';
import { EmptyRequest, patternNames, rpc } from './rpc-contract';

export const ACCOUNT_LANGUAGES = ['en', 'es'] as const;
export type AccountLanguage = (typeof ACCOUNT_LANGUAGES)[number];

export const PLAN_LIMIT_NAMES = [
  'rate_limit_per_day',
  'provider_tool_calls_per_day',
  'workflow_concurrency',
  'workflow_step_limit',
  'asset_storage_bytes',
] as const;
export type PlanLimitName = (typeof PLAN_LIMIT_NAMES)[number];
/** Every plan value; null means unlimited. */
export type PlanLimits = Record<PlanLimitName, number | null>;

/** `wgl_` + 40 base62 characters; the first 12 characters are the visible prefix. */
export const API_KEY_PATTERN = /^wgl_[0-9A-Za-z]{40}$/;
export const API_KEY_PREFIX_LENGTH = 12;

export interface PlanSummary {
  key: string;
  name: string;
  limits: PlanLimits;
  /** Runs on the operator's provider keys draw on the workspace's hosted credits. */
  hosted_credits: boolean;
}

export interface WorkspaceSummary {
  id: string;
  name: string;
  plan: string;
  /** The plan's: runs on the operator's provider keys draw on the workspace's hosted credits. */
  hosted_credits: boolean;
  language: AccountLanguage;
  /** Per-workspace overrides; a key present with null lifts that cap. */
  limit_overrides: Partial<PlanLimits>;
  /** The plan's values with the overrides applied. */
  limits: PlanLimits;
  created_at: string;
}

export interface ApiKeySummary {
  id: string;
  prefix: string;
  workspace_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeySummary {
  /** Shown once; only its SHA-256 hash is stored. */
  api_key: string;
}

export interface CreatedWorkspace {
  workspace: WorkspaceSummary;
  api_key: CreatedApiKey;
}

/** What the gateway learns about a valid key, and caches briefly. */
export interface ResolvedApiKey {
  key_id: string;
  workspace_id: string;
  language: AccountLanguage;
  limits: PlanLimits;
  /** The workspace's plan's: whether admission checks the hosted credit balance. */
  hosted_credits: boolean;
}

export class ResolveApiKeyRequest {
  @IsString()
  @Length(API_KEY_PREFIX_LENGTH, API_KEY_PREFIX_LENGTH)
  prefix!: string;

  /** SHA-256 of the whole key, hex: the key itself never leaves the gateway. */
  @Matches(/^[0-9a-f]{64}$/)
  key_hash!: string;
}

export class CreateWorkspaceRequest {
  @IsString()
  @Length(1, 200)
  name!: string;

  @IsOptional()
  @IsString()
  @Length(1, 50)
  plan?: string;

  @IsOptional()
  @IsIn(ACCOUNT_LANGUAGES)
  language?: AccountLanguage;
}

export class SetWorkspacePlanRequest extends WorkspaceIdRequest {
  @IsString()
  @Length(1, 50)
  plan!: string;
}

/** Limit changes: an absent field keeps its value, null makes it unlimited. */
export class LimitsPatch {
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  rate_limit_per_day?: number | null;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  provider_tool_calls_per_day?: number | null;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  workflow_concurrency?: number | null;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  workflow_step_limit?: number | null;

  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  asset_storage_bytes?: number | null;
}

export class SetWorkspaceLimitsRequest extends LimitsPatch {
  @IsUUID()
  workspace_id!: string;
}

export class SetPlanLimitsRequest extends LimitsPatch {
  @IsString()
  @Length(1, 50)
  plan!: string;

  /** Whether runs on the operator's provider keys draw on hosted credits; absent keeps it. */
  @IsOptional()
  @IsBoolean()
  hosted_credits?: boolean;
}

export class RevokeApiKeyRequest {
  /** The key's id or its visible prefix. */
  @IsString()
  @Length(1, 100)
  key!: string;
}

export const MODEL_PROVIDER_VIEWS = ['serving', 'maker'] as const;

export class ListModelsRequest {
  /** `serving` for /v1/public/models, `maker` for /v1/models. */
  @IsIn(MODEL_PROVIDER_VIEWS)
  provider_view!: (typeof MODEL_PROVIDER_VIEWS)[number];
}

/** One entry of the public model listing: exactly the spec's twelve fields. */
export interface PublicModel {
  id: string;
  name: string;
  slug: string;
  provider: string;
  provider_name: string;
  context_limit: number;
  model_type: 'llm' | 'image_generation';
  is_image_generation: boolean;
  is_vision: boolean;
  is_reasoning: boolean;
  is_tool_calling: boolean;
  is_json_schema: boolean;
}

export class ModelIdRequest {
  @IsString()
  @Length(1, 200)
  model_id!: string;
}

/** Everything a service needs to call a model: who serves it, how, and whether it may. */
export interface ModelRoute {
  id: string;
  name: string;
  provider: string;
  provider_name: string;
  provider_api: 'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'local';
  provider_model_id: string;
  model_type: 'llm' | 'image_generation' | 'embedding';
  is_vision: boolean;
  /** The model can call tools (agents offer theirs only then). */
  is_tool_calling: boolean;
  /** The provider holds answers to a JSON schema itself (D42); other models are instructed and checked. */
  is_json_schema: boolean;
  /** Tokens of context, prompt and answer together; 0 when the catalog does not know. */
  context_limit: number;
  status: 'active' | 'deprecated';
  /**
   * The model's effective price: the operator's override when one is set, else the catalog
   * file's. Null only for a model loaded from a catalog file older than prices (it is then not
   * charged).
   */
  pricing: ModelPricing | null;
}

/**
 * A model's price in USD per million tokens (the spec's decisions on usage governance), which is
 * micro-USD per token: `input` for uncached prompt tokens, `cached_input` for prompt tokens read
 * from the provider's cache, `cache_write` for prompt tokens written to it, `output` for
 * completion tokens, `reasoning` for reasoning tokens where the provider bills them apart from
 * output (null: billed as output). At most PRICE_DECIMALS decimals, so a token's price is a whole
 * number of pico-USD and a run's cost is exact before its one rounding.
 */
export interface ModelPricing {
  input: number;
  cached_input: number;
  cache_write: number;
  output: number;
  reasoning: number | null;
  price_version: string;
}

/** Decimals a price may have (USD per million tokens): a millionth of a dollar per million tokens. */
export const PRICE_DECIMALS = 6;
/** The highest price per million tokens accepted (USD): far above any list price, low enough that a run's sum stays exact. */
export const MAX_PRICE_PER_MILLION = 100_000;
/** A price version: a date such as `2026-11-21` or any short label (letters, digits, `.`, `_`, `:`, `-`). */
export const PRICE_VERSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** A price as the catalog file and an operator may give it: finite, ≥ 0, at most MAX_PRICE_PER_MILLION, at most PRICE_DECIMALS decimals. */
export function isValidPrice(value: unknown): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_PRICE_PER_MILLION) return false;
  const scaled = value * 10 ** PRICE_DECIMALS;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

/** A model's prices as the operator and a workspace read them. */
export interface ModelPriceView {
  model: string;
  name: string;
  /** What runs are charged: the override when there is one, else the catalog file's. */
  pricing: ModelPricing | null;
  /** `operator` when an override is in force. */
  source: 'catalog' | 'operator';
  /** The catalog file's own price (what a reset goes back to). */
  catalog_pricing: ModelPricing | null;
}

const PRICE_OPTIONS = { allowNaN: false, allowInfinity: false, maxDecimalPlaces: PRICE_DECIMALS } as const;

/** An operator's price for a model, kept apart from the catalog file's so a new catalog load never replaces it. */
export class SetModelPriceRequest {
  @IsString()
  @Length(1, 200)
  model_id!: string;

  @IsNumber(PRICE_OPTIONS)
  @Min(0)
  @Max(MAX_PRICE_PER_MILLION)
  input!: number;

  /** Absent: the input price (no cache discount). */
  @IsOptional()
  @IsNumber(PRICE_OPTIONS)
  @Min(0)
  @Max(MAX_PRICE_PER_MILLION)
  cached_input?: number;

  /** Absent: the input price. */
  @IsOptional()
  @IsNumber(PRICE_OPTIONS)
  @Min(0)
  @Max(MAX_PRICE_PER_MILLION)
  cache_write?: number;

  @IsNumber(PRICE_OPTIONS)
  @Min(0)
  @Max(MAX_PRICE_PER_MILLION)
  output!: number;

  /** Absent or null: reasoning tokens are billed as output. */
  @IsOptional()
  @IsNumber(PRICE_OPTIONS)
  @Min(0)
  @Max(MAX_PRICE_PER_MILLION)
  reasoning?: number | null;

  @IsString()
  @Matches(PRICE_VERSION_PATTERN)
  price_version!: string;
}

export class LoadModelsRequest {
  /** The catalog file's YAML text. */
  @IsString()
  @Length(1, 4 * 1024 * 1024)
  yaml!: string;

  /** Reload even when this version is already the current one. */
  @IsOptional()
  @IsBoolean()
  @Type(() => Boolean)
  force?: boolean;
}

export interface LoadModelsResponse {
  version: string;
  loaded: boolean;
  model_count: number;
  listed_count: number;
}

/** The catalog service: plans, workspaces, API keys and the model catalog. */
export const CatalogContracts = {
  /** The gateway's key check: prefix and SHA-256 only, the key itself never travels. */
  resolveApiKey: rpc('catalog.api-keys.resolve', ResolveApiKeyRequest).returns<ResolvedApiKey>(),
  createApiKey: rpc('catalog.api-keys.create', WorkspaceIdRequest).returns<CreatedApiKey>(),
  listApiKeys: rpc('catalog.api-keys.list', WorkspaceIdRequest).returns<ApiKeySummary[]>(),
  revokeApiKey: rpc('catalog.api-keys.revoke', RevokeApiKeyRequest).returns<ApiKeySummary>(),
  createWorkspace: rpc('catalog.workspaces.create', CreateWorkspaceRequest).returns<CreatedWorkspace>(),
  listWorkspaces: rpc('catalog.workspaces.list', EmptyRequest).returns<WorkspaceSummary[]>(),
  /** A workspace that exists and is not deleted; otherwise `not_found`. */
  getWorkspace: rpc('catalog.workspaces.get', WorkspaceIdRequest).returns<WorkspaceSummary>(),
  setWorkspacePlan: rpc('catalog.workspaces.set-plan', SetWorkspacePlanRequest).returns<WorkspaceSummary>(),
  setWorkspaceLimits: rpc('catalog.workspaces.set-limits', SetWorkspaceLimitsRequest).returns<WorkspaceSummary>(),
  deleteWorkspace: rpc('catalog.workspaces.delete', WorkspaceIdRequest).returns<WorkspaceSummary>(),
  listPlans: rpc('catalog.plans.list', EmptyRequest).returns<PlanSummary[]>(),
  setPlanLimits: rpc('catalog.plans.set', SetPlanLimitsRequest).returns<PlanSummary>(),
  listModels: rpc('catalog.models.list', ListModelsRequest).returns<PublicModel[]>(),
  loadModels: rpc('catalog.models.load', LoadModelsRequest).returns<LoadModelsResponse>(),
  /** A cached lookup on a run's path (ModelRoutes): a catalog that does not answer in 5 s fails the run rather than holding it. */
  getModelRoute: rpc('catalog.models.route', ModelIdRequest, { timeoutMs: 5_000 }).returns<ModelRoute>(),
  /** The effective prices of the listed models (what a workspace may read). */
  listModelPrices: rpc('catalog.models.prices.list', EmptyRequest).returns<ModelPriceView[]>(),
  /** Any stored model's prices, the catalog's and the override. */
  getModelPrice: rpc('catalog.models.prices.get', ModelIdRequest).returns<ModelPriceView>(),
  /** Operator only: never reachable with a workspace key. */
  setModelPrice: rpc('catalog.models.prices.set', SetModelPriceRequest).returns<ModelPriceView>(),
  /** Operator only: drops the override, back to the catalog file's price. */
  resetModelPrice: rpc('catalog.models.prices.reset', ModelIdRequest).returns<ModelPriceView>(),
};

export const CatalogPatterns = patternNames(CatalogContracts);
