import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { integerFromDigits, ListPage, WorkspaceIdRequest } from './common.dto';
import { IsRunSurface, type RunSurface } from './conversation';
import { REQUEST_ID_FORMAT } from './invocation.patterns';
import { patternNames, rpc } from './rpc-contract';

/** The spec's enum of `search_type`. */
export const KNOWLEDGE_BASE_SEARCH_TYPES = ['hybrid', 'vector', 'full_text'] as const;
export type KnowledgeBaseSearchType = (typeof KNOWLEDGE_BASE_SEARCH_TYPES)[number];

/** decisions: an item's `run_status` moves queued → running → completed | failed. */
export const KNOWLEDGE_BASE_ITEM_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type KnowledgeBaseItemRunStatus = (typeof KNOWLEDGE_BASE_ITEM_RUN_STATUSES)[number];
/** decisions: an item's `status`. */
export const KNOWLEDGE_BASE_ITEM_STATUSES = ['active', 'archived'] as const;
export type KnowledgeBaseItemStatus = (typeof KNOWLEDGE_BASE_ITEM_STATUSES)[number];
/** Where an item's document came from: an asset of the workspace, or an `https://` URL. */
export const KNOWLEDGE_BASE_ITEM_TYPES = ['asset', 'url'] as const;
export type KnowledgeBaseItemType = (typeof KNOWLEDGE_BASE_ITEM_TYPES)[number];

/** Items per page of the streamed item list (about 300 bytes each on the wire). */
export const KNOWLEDGE_BASE_ITEMS_PAGE = 500;

/** The spec's bounds of search (and of the knowledge base's own defaults). */
export const SEARCH_CHUNK_LIMIT = { min: 1, max: 20 } as const;
export const SEARCH_SCORE_THRESHOLD = { min: 0, max: 1 } as const;
/** decisions: the defaults of a new knowledge base. */
export const KNOWLEDGE_BASE_DEFAULTS = { search_type: 'hybrid', search_score_threshold: 0.3, search_chunk_limit: 5 } as const;

/** A field every update may leave out but never unset: absent keeps its value, null is refused. */
const unlessAbsent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** The fields create and update share, apart from `name` and `search_chunk_limit`. */
class KnowledgeBaseOptionalFields {
  @IsOptional()
  @IsString()
  @Length(0, 10_000)
  description?: string | null;

  @unlessAbsent()
  @IsIn(KNOWLEDGE_BASE_SEARCH_TYPES)
  search_type?: KnowledgeBaseSearchType;

  @unlessAbsent()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(SEARCH_SCORE_THRESHOLD.min)
  @Max(SEARCH_SCORE_THRESHOLD.max)
  search_score_threshold?: number;
}

/** The `knowledge_base` object of a create: `name` required. */
export class CreateKnowledgeBaseFields extends KnowledgeBaseOptionalFields {
  @IsString()
  @Length(1, 200)
  name!: string;

  /** Declared "string, format uuid" by a slip (decisions): an integer, a string of digits coerced. */
  @unlessAbsent()
  @Transform(integerFromDigits)
  @IsInt()
  @Min(SEARCH_CHUNK_LIMIT.min)
  @Max(SEARCH_CHUNK_LIMIT.max)
  search_chunk_limit?: number;
}

/** The `knowledge_base` object of an update: every field optional; an absent field keeps its value. */
export class UpdateKnowledgeBaseFields extends KnowledgeBaseOptionalFields {
  @unlessAbsent()
  @IsString()
  @Length(1, 200)
  name?: string;

  /** Declared an integer on update, and only an integer is taken. */
  @unlessAbsent()
  @IsInt()
  @Min(SEARCH_CHUNK_LIMIT.min)
  @Max(SEARCH_CHUNK_LIMIT.max)
  search_chunk_limit?: number;
}

export class CreateKnowledgeBaseRequest extends WorkspaceIdRequest {
  /** The spec's required wrapper. */
  @IsObject()
  @ValidateNested()
  @Type(() => CreateKnowledgeBaseFields)
  knowledge_base!: CreateKnowledgeBaseFields;
}

/**
 * One knowledge base of a workspace. Any string: one that is no UUID names no knowledge base
 * and answers 422 "Knowledge base not found" like an unknown one.
 */
export class KnowledgeBaseIdRequest extends WorkspaceIdRequest {
  @IsString()
  @Length(1, 100)
  knowledge_base_id!: string;
}

/** A page of a knowledge base's items, newest first (`before`: an item id of the same knowledge base). */
export class KnowledgeBaseItemPageRequest extends ListPage {
  @IsUUID()
  workspace_id!: string;

  @IsString()
  @Length(1, 100)
  knowledge_base_id!: string;
}

export class UpdateKnowledgeBaseRequest extends KnowledgeBaseIdRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateKnowledgeBaseFields)
  knowledge_base!: UpdateKnowledgeBaseFields;
}

/**
 * A search. The public route requires all four fields (the gateway's body class says so);
 * other services (an agent's `knowledge_search` tool) may leave the last three out, and the
 * knowledge base's own settings apply.
 */
export class SearchKnowledgeBaseRequest extends KnowledgeBaseIdRequest {
  @IsString()
  @Length(1, 10_000)
  search_query!: string;

  @unlessAbsent()
  @IsIn(KNOWLEDGE_BASE_SEARCH_TYPES)
  search_type?: KnowledgeBaseSearchType;

  @unlessAbsent()
  @IsInt()
  @Min(SEARCH_CHUNK_LIMIT.min)
  @Max(SEARCH_CHUNK_LIMIT.max)
  search_chunk_limit?: number;

  @unlessAbsent()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(SEARCH_SCORE_THRESHOLD.min)
  @Max(SEARCH_SCORE_THRESHOLD.max)
  search_score_threshold?: number;

  /**
   * Given with `surface` by a caller whose search is a run of its own (an MCP client's
   * `knowledge_search` tool call, the spec's decisions, MCP): the search is recorded in the
   * request ledger under this id. Searches of the public route and of agents are not.
   */
  @IsOptional()
  @Matches(REQUEST_ID_FORMAT)
  request_id?: string;

  @IsRunSurface()
  surface?: RunSurface;
}

/** A document to add to a knowledge base: exactly one of `asset_id` and `url`. */
export class AddKnowledgeBaseItemRequest extends KnowledgeBaseIdRequest {
  /** An asset of the same workspace. */
  @ValidateIf((request: AddKnowledgeBaseItemRequest) => request.url === undefined || request.asset_id !== undefined)
  @IsUUID()
  asset_id?: string;

  /** An `https://` URL, fetched through the SSRF guard. */
  @ValidateIf((request: AddKnowledgeBaseItemRequest) => request.asset_id === undefined || request.url !== undefined)
  @IsString()
  @MaxLength(8192)
  url?: string;

  /** The item's name; the asset's name or the URL's last path segment when absent. */
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  name?: string;
}

export class KnowledgeBaseItemIdRequest extends KnowledgeBaseIdRequest {
  @IsString()
  @Length(1, 100)
  item_id!: string;
}

/** The embedding model new knowledge bases of the workspace are created with. */
export class SetEmbeddingModelRequest extends WorkspaceIdRequest {
  /** An active `embedding` model of the catalog. */
  @IsString()
  @Length(1, 200)
  embedding_model!: string;
}

/** A workspace's embedding model setting; `source` says whether it is the workspace's own or the operator's default. */
export interface EmbeddingModelSetting {
  embedding_model: string;
  source: 'workspace' | 'default';
}

/** decisions: the knowledge base record in responses, plus ingestion progress. */
export interface KnowledgeBaseRecord {
  id: string;
  name: string;
  description: string | null;
  search_type: KnowledgeBaseSearchType;
  search_score_threshold: number;
  search_chunk_limit: number;
  status: 'active';
  items_count: number;
  /** Ingestion progress: the active items by `run_status`. */
  items_by_status: Record<KnowledgeBaseItemRunStatus, number>;
  /** The model its chunks are embedded with, fixed at creation (vectors of different models never mix). */
  embedding_model: string;
  /** The vectors' length; null until the first chunk is embedded. */
  embedding_dimensions: number | null;
  created_at: string;
  updated_at: string;
}

/** The spec's six item fields, with the error of a failed item and its progress. */
export interface KnowledgeBaseItemRecord {
  id: string;
  name: string;
  knowledge_base_id: string;
  item_type: KnowledgeBaseItemType;
  run_status: KnowledgeBaseItemRunStatus;
  status: KnowledgeBaseItemStatus;
  /** Why ingestion failed; null unless `run_status` is `failed`. */
  error: string | null;
  /** Chunks indexed; 0 until completed. */
  chunks_count: number;
  created_at: string;
  updated_at: string;
}

/** One chunk of a search answer (decisions: knowledge base search response). */
export interface KnowledgeBaseSearchChunk {
  id: string;
  knowledge_base_item_id: string;
  item_name: string;
  content: string;
  /** In [0, 1]; its scale per search type is documented in docs/guide/knowledge-bases.md. */
  score: number;
  /** Each side's own score in [0, 1], null for a side the search type does not use. */
  scores: { full_text: number | null; vector: number | null };
  /** The chunk's position within its item, from 0. */
  position: number;
}

export interface KnowledgeBaseSearchResponse {
  search_query: string;
  search_type: KnowledgeBaseSearchType;
  chunks: KnowledgeBaseSearchChunk[];
}

export interface DeletedKnowledgeBase {
  id: string;
}

/** The jobs of the knowledge-base service's own queues. */
export interface KnowledgeBaseIngestJob {
  workspace_id: string;
  knowledge_base_id: string;
  item_id: string;
}

export interface KnowledgeBaseCleanupJob {
  knowledge_base_id: string;
}

/** The knowledge-base service: knowledge bases, their items and ingestion, search. */
export const KnowledgeBaseContracts = {
  /** Active knowledge bases of the workspace, oldest first. */
  listKnowledgeBases: rpc('knowledge-base.knowledge-bases.list', WorkspaceIdRequest).returns<KnowledgeBaseRecord[]>(),
  createKnowledgeBase: rpc('knowledge-base.knowledge-bases.create', CreateKnowledgeBaseRequest).returns<KnowledgeBaseRecord>(),
  /** 422 resource_not_found "Knowledge base not found" for an unknown, deleted or another workspace's one. */
  getKnowledgeBase: rpc('knowledge-base.knowledge-bases.get', KnowledgeBaseIdRequest).returns<KnowledgeBaseRecord>(),
  updateKnowledgeBase: rpc('knowledge-base.knowledge-bases.update', UpdateKnowledgeBaseRequest).returns<KnowledgeBaseRecord>(),
  /** Marks it deleted at once (gone from every read) and queues the removal of its contents. */
  deleteKnowledgeBase: rpc('knowledge-base.knowledge-bases.delete', KnowledgeBaseIdRequest).returns<DeletedKnowledgeBase>(),
  /**
   * The knowledge base's items, oldest first, streamed in pages of at most
   * KNOWLEDGE_BASE_ITEMS_PAGE (one NATS message holds 1 MiB by default: a knowledge base of
   * thousands of items does not fit one reply). At least one page, possibly empty.
   */
  listItems: rpc('knowledge-base.items.list', KnowledgeBaseIdRequest).streams<KnowledgeBaseItemRecord[]>(),
  /**
   * A page of the knowledge base's items, newest first (created_at, then id), after
   * `before`'s; streamed in chunks of at most KNOWLEDGE_BASE_ITEMS_PAGE, at least one,
   * possibly empty. 422 before any chunk when the knowledge base is not found.
   */
  pageItems: rpc('knowledge-base.items.page', KnowledgeBaseItemPageRequest).streams<KnowledgeBaseItemRecord[]>(),
  /** Records the item as queued and queues its ingestion. */
  addItem: rpc('knowledge-base.items.add', AddKnowledgeBaseItemRequest).returns<KnowledgeBaseItemRecord>(),
  getItem: rpc('knowledge-base.items.get', KnowledgeBaseItemIdRequest).returns<KnowledgeBaseItemRecord>(),
  /** Embeds the query with the knowledge base's model (a provider call) before it searches: longer than a lookup. */
  search: rpc('knowledge-base.search', SearchKnowledgeBaseRequest, { timeoutMs: 30_000 }).returns<KnowledgeBaseSearchResponse>(),
  /** The embedding model new knowledge bases of the workspace get: the workspace's setting, else the operator's default. */
  getEmbeddingModel: rpc('knowledge-base.embedding-model.get', WorkspaceIdRequest).returns<EmbeddingModelSetting>(),
  /** 422 validation_error unless the model is an active embedding model of the catalog. */
  setEmbeddingModel: rpc('knowledge-base.embedding-model.set', SetEmbeddingModelRequest).returns<EmbeddingModelSetting>(),
} as const;

export const KnowledgeBasePatterns = patternNames(KnowledgeBaseContracts);
