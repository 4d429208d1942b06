import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  AssetPatterns,
  CatalogPatterns,
  DEFAULT_PAGE_LIMIT,
  KNOWLEDGE_BASE_DEFAULTS,
  KNOWLEDGE_BASE_ITEMS_PAGE,
  QueueNames,
  send,
  type AddKnowledgeBaseItemRequest,
  type CreateKnowledgeBaseFields,
  type DeletedKnowledgeBase,
  type EmbeddingModelSetting,
  type KnowledgeBaseItemPageRequest,
  type KnowledgeBaseItemRecord,
  type KnowledgeBaseRecord,
  type UpdateKnowledgeBaseFields,
} from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import { APP_ENV, enqueue, NatsRpcClient, safeDecodeURIComponent, type JobQueue } from '@waggle/platform';
import type { KnowledgeBaseEnv } from '../config/knowledge-base.env';
import type { KnowledgeBaseEntity } from './entities/knowledge-base.entity';
import type { KnowledgeBase } from './knowledge-base';
import { itemNotFound, knowledgeBaseNotFound, toItemRecord, toKnowledgeBaseRecord } from './knowledge-base-record';
import { KnowledgeBasesRepository } from './knowledge-bases.repository';
import { WorkspaceSettingsRepository } from './workspace-settings.repository';

function invalid(field: string, text: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { ...text, details: [{ field, messages: [errorMessage(text, 'en')] }] });
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
  // The caller's URL: a malformed escape (`/%E0%A4%A`) stays as it was written.
  return segment ? safeDecodeURIComponent(segment).slice(0, 1024) : url.hostname;
}

/**
 * Knowledge bases of a workspace and their items: create, read, list, update, delete (at
 * once for every reader; the cleanup worker removes the contents), items added and queued
 * for ingestion, and the workspace's embedding model setting. Every read is scoped to the
 * workspace: another workspace's knowledge base and a deleted one answer alike, 422.
 */
@Injectable()
export class KnowledgeBasesService implements OnApplicationBootstrap {
  private readonly logger = new Logger(KnowledgeBasesService.name);

  constructor(
    private readonly repository: KnowledgeBasesRepository,
    private readonly settings: WorkspaceSettingsRepository,
    private readonly rpc: NatsRpcClient,
    @Inject(APP_ENV) private readonly env: KnowledgeBaseEnv,
    @InjectQueue(QueueNames.knowledgeBaseIngest) private readonly ingest: JobQueue<'knowledge-base-ingest'>,
    @InjectQueue(QueueNames.knowledgeBaseCleanup) private readonly cleanup: JobQueue<'knowledge-base-cleanup'>,
  ) {}

  /** A deleted knowledge base whose cleanup job was lost (Redis flushed, say) is queued again: its row is still there. */
  async onApplicationBootstrap(): Promise<void> {
    for (const id of await this.repository.deletedIds()) await enqueue(this.cleanup, id, { knowledge_base_id: id });
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
  getActive(workspaceId: string, knowledgeBaseId: string): Promise<KnowledgeBase> {
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
    const updated = await this.repository.transaction(async () => {
      const knowledgeBase = await this.repository.getActive(workspaceId, knowledgeBaseId, { lock: true });
      if (fields.name !== undefined) knowledgeBase.name = fields.name;
      if (fields.description !== undefined) knowledgeBase.description = fields.description;
      if (fields.search_type !== undefined) knowledgeBase.searchType = fields.search_type;
      if (fields.search_score_threshold !== undefined) knowledgeBase.searchScoreThreshold = fields.search_score_threshold;
      if (fields.search_chunk_limit !== undefined) knowledgeBase.searchChunkLimit = fields.search_chunk_limit;
      return this.repository.save(knowledgeBase);
    });
    return this.record(updated);
  }

  /** Gone from every read at once; its chunks, items and row are removed by the cleanup worker (job id = its id). */
  async delete(workspaceId: string, knowledgeBaseId: string): Promise<DeletedKnowledgeBase> {
    if (!(await this.repository.markDeleted(workspaceId, knowledgeBaseId))) throw knowledgeBaseNotFound();
    // Should this enqueue fail, the next start of any replica queues it again (onApplicationBootstrap).
    await enqueue(this.cleanup, knowledgeBaseId, { knowledge_base_id: knowledgeBaseId }).catch((error: unknown) =>
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

  /** A page of the items, newest first, in chunks of KNOWLEDGE_BASE_ITEMS_PAGE; 422 before any chunk when the knowledge base is not found. */
  async *itemPage(request: KnowledgeBaseItemPageRequest): AsyncGenerator<KnowledgeBaseItemRecord[]> {
    const knowledgeBase = await this.repository.getActive(request.workspace_id, request.knowledge_base_id);
    const page = await this.repository.itemPage(knowledgeBase.id, request.before ?? null, request.limit ?? DEFAULT_PAGE_LIMIT);
    const records = page.map(toItemRecord);
    for (let start = 0; start === 0 || start < records.length; start += KNOWLEDGE_BASE_ITEMS_PAGE) {
      yield records.slice(start, start + KNOWLEDGE_BASE_ITEMS_PAGE);
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
    if (request.asset_id !== undefined && request.url !== undefined) throw invalid('url', { detail: 'asset_or_url' });
    if (request.asset_id !== undefined) {
      const asset = await send(this.rpc, AssetPatterns.getAsset, { workspace_id: request.workspace_id, asset_id: request.asset_id });
      source = { itemType: 'asset', sourceAssetId: asset.id, sourceUrl: null, name: request.name ?? asset.name };
    } else {
      const url = parsedUrl(request.url ?? '');
      if (!url || url.protocol !== 'https:') throw invalid('url', { detail: 'url_not_https' });
      source = { itemType: 'url', sourceAssetId: null, sourceUrl: url.href, name: request.name ?? nameOfUrl(url) };
    }
    const item = await this.repository.insertItem({ knowledgeBaseId: knowledgeBase.id, workspaceId: request.workspace_id, ...source });
    await enqueue(this.ingest, item.id, { workspace_id: request.workspace_id, knowledge_base_id: knowledgeBase.id, item_id: item.id });
    this.logger.log({ msg: 'knowledge base item queued', knowledge_base_id: knowledgeBase.id, item_id: item.id, item_type: item.itemType });
    return toItemRecord(item);
  }

  /** The embedding model new knowledge bases of the workspace get. */
  async embeddingModel(workspaceId: string): Promise<EmbeddingModelSetting> {
    const setting = await this.settings.find(workspaceId);
    return setting
      ? { embedding_model: setting.embeddingModel, source: 'workspace' }
      : { embedding_model: this.env.KB_EMBEDDING_MODEL, source: 'default' };
  }

  /** Sets it, once the catalog confirms an active embedding model; existing knowledge bases keep theirs. */
  async setEmbeddingModel(workspaceId: string, model: string): Promise<EmbeddingModelSetting> {
    const route = await send(this.rpc, CatalogPatterns.getModelRoute, { model_id: model }).catch((error: unknown) => {
      if (error instanceof WaggleException && error.code === 'resource_not_found') return null;
      throw error;
    });
    if (!route) throw invalid('embedding_model', { detail: 'embedding_model_not_in_catalog', params: { model } });
    if (route.model_type !== 'embedding')
      throw invalid('embedding_model', { detail: 'embedding_model_wrong_type', params: { model, model_type: route.model_type } });
    if (route.status !== 'active') throw invalid('embedding_model', { detail: 'embedding_model_unavailable', params: { model } });
    await this.settings.setEmbeddingModel(workspaceId, model);
    return { embedding_model: model, source: 'workspace' };
  }
}
