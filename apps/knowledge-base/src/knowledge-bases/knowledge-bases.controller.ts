import { Controller } from '@nestjs/common';
import {
  AddKnowledgeBaseItemRequest,
  CreateKnowledgeBaseRequest,
  KnowledgeBaseIdRequest,
  KnowledgeBaseItemIdRequest,
  KnowledgeBaseItemPageRequest,
  KnowledgeBasePatterns,
  SetEmbeddingModelRequest,
  UpdateKnowledgeBaseRequest,
  WorkspaceIdRequest,
  type DeletedKnowledgeBase,
  type EmbeddingModelSetting,
  type KnowledgeBaseItemRecord,
  type KnowledgeBaseRecord,
} from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { from, type Observable } from 'rxjs';
import { KnowledgeBasesService } from './knowledge-bases.service';

@Controller()
export class KnowledgeBasesController {
  constructor(private readonly knowledgeBases: KnowledgeBasesService) {}

  @RpcHandler(KnowledgeBasePatterns.listKnowledgeBases)
  list(request: WorkspaceIdRequest): Promise<KnowledgeBaseRecord[]> {
    return this.knowledgeBases.list(request.workspace_id);
  }

  @RpcHandler(KnowledgeBasePatterns.createKnowledgeBase)
  create(request: CreateKnowledgeBaseRequest): Promise<KnowledgeBaseRecord> {
    return this.knowledgeBases.create(request.workspace_id, request.knowledge_base);
  }

  @RpcHandler(KnowledgeBasePatterns.getKnowledgeBase)
  get(request: KnowledgeBaseIdRequest): Promise<KnowledgeBaseRecord> {
    return this.knowledgeBases.get(request.workspace_id, request.knowledge_base_id);
  }

  @RpcHandler(KnowledgeBasePatterns.updateKnowledgeBase)
  update(request: UpdateKnowledgeBaseRequest): Promise<KnowledgeBaseRecord> {
    return this.knowledgeBases.update(request.workspace_id, request.knowledge_base_id, request.knowledge_base);
  }

  @RpcHandler(KnowledgeBasePatterns.deleteKnowledgeBase)
  delete(request: KnowledgeBaseIdRequest): Promise<DeletedKnowledgeBase> {
    return this.knowledgeBases.delete(request.workspace_id, request.knowledge_base_id);
  }

  @RpcHandler(KnowledgeBasePatterns.listItems)
  listItems(request: KnowledgeBaseIdRequest): Observable<KnowledgeBaseItemRecord[]> {
    return from(this.knowledgeBases.listItemPages(request.workspace_id, request.knowledge_base_id));
  }

  @RpcHandler(KnowledgeBasePatterns.pageItems)
  pageItems(request: KnowledgeBaseItemPageRequest): Observable<KnowledgeBaseItemRecord[]> {
    return from(this.knowledgeBases.itemPage(request));
  }

  @RpcHandler(KnowledgeBasePatterns.addItem)
  addItem(request: AddKnowledgeBaseItemRequest): Promise<KnowledgeBaseItemRecord> {
    return this.knowledgeBases.addItem(request);
  }

  @RpcHandler(KnowledgeBasePatterns.getItem)
  getItem(request: KnowledgeBaseItemIdRequest): Promise<KnowledgeBaseItemRecord> {
    return this.knowledgeBases.getItem(request.workspace_id, request.knowledge_base_id, request.item_id);
  }

  @RpcHandler(KnowledgeBasePatterns.getEmbeddingModel)
  embeddingModel(request: WorkspaceIdRequest): Promise<EmbeddingModelSetting> {
    return this.knowledgeBases.embeddingModel(request.workspace_id);
  }

  @RpcHandler(KnowledgeBasePatterns.setEmbeddingModel)
  setEmbeddingModel(request: SetEmbeddingModelRequest): Promise<EmbeddingModelSetting> {
    return this.knowledgeBases.setEmbeddingModel(request.workspace_id, request.embedding_model);
  }
}
