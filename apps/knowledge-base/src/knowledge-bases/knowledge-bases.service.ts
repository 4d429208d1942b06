import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  AssetPatterns,
  CatalogPatterns,
  KNOWLEDGE_BASE_DEFAULTS,
  KNOWLEDGE_BASE_ITEMS_PAGE,
  QueueNames,
  send,
  type AddKnowledgeBaseItemRequest,
  type CreateKnowledgeBaseFields,
  type DeletedKnowledgeBase,
  type EmbeddingModelSetting,
  type KnowledgeBaseItemRecord,
  type KnowledgeBaseRecord,
  type UpdateKnowledgeBaseFields,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { APP_ENV, NatsRpcClient, QueueProducer, REDIS_CLIENT } from '@waggle/platform';
import type Redis from 'ioredis';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';
import type { KnowledgeBaseEntity } from './entities/knowledge-base.entity';
import { itemNotFound, knowledgeBaseNotFound, toItemRecord, toKnowledgeBaseRecord } from './knowledge-base-record';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';

const RPC_TIMEOUT_MS = 5_000;

function invalid(field: string, message: string): WaggleException {
  return new WaggleException('validation_error', { message, details: [{ field, messages: [message] }] });
}

function parsedUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The name an item from a URL gets when the caller names none: the URL's last path segment, else its host. */
export function nameOfUrl(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean).pop();
  return segment ? decodeURIComponent(segment).slice(0, 1024) : url.hostname;
}

/**
 * Knowledge bases of a workspace and their items: create, read, list, update, delete (at
 * once for every reader; the cleanup worker removes the contents), items added and queued
 * for ingestion, and the workspace's embedding model setting. Every read is scoped to the
 * workspace: another workspace's knowledge base and a deleted one answer alike, 422.
 */
@Injectable()
export class KnowledgeBasesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(KnowledgeBasesService.name);
  private readonly ingest: QueueProducer<'knowledge-base-ingest'>;
  private readonly cleanup: QueueProducer<'knowledge-base-cleanup'>;

  constructor(
    private readonly repository: KnowledgeBasesRepository,
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: KnowledgeBaseEnv,
    @Inject(REDIS_CLIENT) redis: Redis,
  ) {
    this.ingest = new QueueProducer(QueueNames.knowledgeBaseIngest, redis, {
      jobOptions: { attempts: env.KB_INGEST_ATTEMPTS, backoff: { type: 'exponential', delay: env.KB_INGEST_BACKOFF_MS } },
    });
    this.cleanup = new QueueProducer(QueueNames.knowledgeBaseCleanup, redis);
  }

  /** A deleted knowledge base whose cleanup job was lost (Redis flushed, say) is queued again: its row is still there. */
  async onApplicationBootstrap(): Promise<void> {
    for (const id of await this.repository.deletedIds()) await this.cleanup.add(id, { knowledge_base_id: id });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.ingest.close(), this.cleanup.close()]);
  }

  private async record(knowledgeBase: KnowledgeBaseEntity): Promise<KnowledgeBaseRecord> {
    const counts = await this.repository.itemCounts([knowledgeBase.id]);
    return toKnowledgeBaseRecord(knowledgeBase, counts.get(knowledgeBase.id));
  }

  async list(workspaceId: string): Promise<KnowledgeBaseRecord[]> {
    const knowledgeBases = await this.repository.listActive(workspaceId);
    const counts = await this.repository.itemCounts(knowledgeBases.map((knowledgeBase) => knowledgeBase.id));
    return knowledgeBases.map((knowledgeBase) => toKnowledgeBaseRecord(knowledgeBase, counts.get(knowledgeBase.id)));
  }

  async get(workspaceId: string, knowledgeBaseId: string): Promise<KnowledgeBaseRecord> {
    return this.record(await this.repository.getActive(workspaceId, knowledgeBaseId));
  }

  /** The workspace's active knowledge base (for search); otherwise 422 "Knowledge base not found". */
  getActive(workspaceId: string, knowledgeBaseId: string): Promise<KnowledgeBaseEntity> {
    return this.repository.getActive(workspaceId, knowledgeBaseId);
  }

  async create(workspaceId: string, fields: CreateKnowledgeBaseFields): Promise<KnowledgeBaseRecord> {
    const { embedding_model } = await this.embeddingModel(workspaceId);
    const knowledgeBase = await this.repository.insert({
      workspaceId,
      name: fields.name,
      description: fields.description ?? null,
      searchType: fields.search_type ?? KNOWLEDGE_BASE_DEFAULTS.search_type,
      searchScoreThreshold: fields.search_score_threshold ?? KNOWLEDGE_BASE_DEFAULTS.search_score_threshold,
      searchChunkLimit: fields.search_chunk_limit ?? KNOWLEDGE_BASE_DEFAULTS.search_chunk_limit,
      embeddingModel: embedding_model,
    });
    this.logger.log({ msg: 'knowledge base created', knowledge_base_id: knowledgeBase.id, embedding_model });
    return toKnowledgeBaseRecord(knowledgeBase);
  }

  /** Changes the fields the update names; an absent field keeps its value (null clears only the description). */
  async update(workspaceId: string, knowledgeBaseId: string, fields: UpdateKnowledgeBaseFields): Promise<KnowledgeBaseRecord> {
    const updated = await this.repository.transaction(async (manager) => {
      const knowledgeBase = await this.repository.getActive(workspaceId, knowledgeBaseId, manager, true);
      if (fields.name !== undefined) knowledgeBase.name = fields.name;
      if (fields.description !== undefined) knowledgeBase.description = fields.description;
      if (fields.search_type !== undefined) knowledgeBase.searchType = fields.search_type;
      if (fields.search_score_threshold !== undefined) knowledgeBase.searchScoreThreshold = fields.search_score_threshold;
      if (fields.search_chunk_limit !== undefined) knowledgeBase.searchChunkLimit = fields.search_chunk_limit;
      return this.repository.save(manager, knowledgeBase);
    });
    return this.record(updated);
  }

  /** Gone from every read at once; its chunks, items and row are removed by the cleanup worker (job id = its id). */
  async delete(workspaceId: string, knowledgeBaseId: string): Promise<DeletedKnowledgeBase> {
    if (!(await this.repository.markDeleted(workspaceId, knowledgeBaseId))) throw knowledgeBaseNotFound();
    // Should this enqueue fail, the next start of any replica queues it again (onApplicationBootstrap).
    await this.cleanup
      .add(knowledgeBaseId, { knowledge_base_id: knowledgeBaseId })
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, knowledge_base_id: knowledgeBaseId },
          'the cleanup of a deleted knowledge base could not be queued yet',
        ),
      );
    this.logger.log({ msg: 'knowledge base deleted', knowledge_base_id: knowledgeBaseId });
    return { id: knowledgeBaseId };
  }

  /** The items in pages of KNOWLEDGE_BASE_ITEMS_PAGE, oldest first; 422 before any page when the knowledge base is not found. */
  async *listItemPages(workspaceId: string, knowledgeBaseId: string): AsyncGenerator<KnowledgeBaseItemRecord[]> {
    const knowledgeBase = await this.repository.getActive(workspaceId, knowledgeBaseId);
    for (let skip = 0; ; skip += KNOWLEDGE_BASE_ITEMS_PAGE) {
      const page = await this.repository.listItems(knowledgeBase.id, skip, KNOWLEDGE_BASE_ITEMS_PAGE);
      yield page.map(toItemRecord);
      if (page.length < KNOWLEDGE_BASE_ITEMS_PAGE) return;
    }
  }

  async getItem(workspaceId: string, knowledgeBaseId: string, itemId: string): Promise<KnowledgeBaseItemRecord> {
    const knowledgeBase = await this.repository.getActive(workspaceId, knowledgeBaseId);
    const item = await this.repository.findItem(knowledgeBase.id, itemId);
    if (!item) throw itemNotFound();
    return toItemRecord(item);
  }

  /** Records the item `queued` and queues its ingestion (job id = item id). */
  async addItem(request: AddKnowledgeBaseItemRequest): Promise<KnowledgeBaseItemRecord> {
    const knowledgeBase = await this.repository.getActive(request.workspace_id, request.knowledge_base_id);
    let source: { itemType: 'asset' | 'url'; sourceAssetId: string | null; sourceUrl: string | null; name: string };
    if (request.asset_id !== undefined && request.url !== undefined) throw invalid('url', 'Give either asset_id or url, not both');
    if (request.asset_id !== undefined) {
      const asset = await send(
        this.rpc,
        AssetPatterns.getAsset,
        { workspace_id: request.workspace_id, asset_id: request.asset_id },
        { timeoutMs: RPC_TIMEOUT_MS },
      );
      source = { itemType: 'asset', sourceAssetId: asset.id, sourceUrl: null, name: request.name ?? asset.name };
    } else {
      const url = parsedUrl(request.url ?? '');
      if (!url || url.protocol !== 'https:') throw invalid('url', 'The url must be an https:// URL');
      source = { itemType: 'url', sourceAssetId: null, sourceUrl: url.href, name: request.name ?? nameOfUrl(url) };
    }
    const item = await this.repository.insertItem({ knowledgeBaseId: knowledgeBase.id, workspaceId: request.workspace_id, ...source });
    await this.ingest.add(item.id, { workspace_id: request.workspace_id, knowledge_base_id: knowledgeBase.id, item_id: item.id });
    this.logger.log({ msg: 'knowledge base item queued', knowledge_base_id: knowledgeBase.id, item_id: item.id, item_type: item.itemType });
    return toItemRecord(item);
  }

  /** The embedding model new knowledge bases of the workspace get. */
  async embeddingModel(workspaceId: string): Promise<EmbeddingModelSetting> {
    const setting = await this.repository.workspaceEmbeddingModel(workspaceId);
    return setting
      ? { embedding_model: setting.embeddingModel, source: 'workspace' }
      : { embedding_model: this.env.KB_EMBEDDING_MODEL, source: 'default' };
  }

  /** Sets it, once the catalog confirms an active embedding model; existing knowledge bases keep theirs. */
  async setEmbeddingModel(workspaceId: string, model: string): Promise<EmbeddingModelSetting> {
    const route = await send(this.rpc, CatalogPatterns.getModelRoute, { model_id: model }, { timeoutMs: RPC_TIMEOUT_MS }).catch(
      (error: unknown) => {
        if (error instanceof WaggleException && error.code === 'resource_not_found') return null;
        throw error;
      },
    );
    if (!route) throw invalid('embedding_model', `Invalid embedding model: ${model} is not in the model catalog`);
    if (route.model_type !== 'embedding')
      throw invalid('embedding_model', `Invalid embedding model: ${model} is a ${route.model_type} model, not an embedding model`);
    if (route.status !== 'active') throw invalid('embedding_model', `Invalid embedding model: ${model} is no longer available`);
    await this.repository.setWorkspaceEmbeddingModel(workspaceId, model);
    return { embedding_model: model, source: 'workspace' };
  }
}
