import { Controller } from '@nestjs/common';
import { KnowledgeBasePatterns, SearchKnowledgeBaseRequest, type KnowledgeBaseSearchResponse } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { ChunkIndex } from '../index/chunk-index';
import { KnowledgeBasesService } from '../knowledge-bases/knowledge-bases.service';

/**
 * Search over NATS: the public route sends all four fields; other callers (an agent's
 * knowledge_search tool) may leave the last three out, and the knowledge base's own settings apply.
 */
@Controller()
export class SearchController {
  constructor(
    private readonly knowledgeBases: KnowledgeBasesService,
    private readonly index: ChunkIndex,
  ) {}

  @RpcHandler(KnowledgeBasePatterns.search)
  async search(request: SearchKnowledgeBaseRequest): Promise<KnowledgeBaseSearchResponse> {
    const knowledgeBase = await this.knowledgeBases.getActive(request.workspace_id, request.knowledge_base_id);
    const type = request.search_type ?? knowledgeBase.searchType;
    const chunks = await this.index.search(
      {
        id: knowledgeBase.id,
        workspace_id: knowledgeBase.workspaceId,
        embedding_model: knowledgeBase.embeddingModel,
        embedding_dimensions: knowledgeBase.embeddingDimensions,
      },
      {
        query: request.search_query,
        type,
        limit: request.search_chunk_limit ?? knowledgeBase.searchChunkLimit,
        threshold: request.search_score_threshold ?? knowledgeBase.searchScoreThreshold,
      },
    );
    return { search_query: request.search_query, search_type: type, chunks };
  }
}
