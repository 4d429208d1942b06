import { Controller } from '@nestjs/common';
import { KnowledgeBasePatterns, SearchKnowledgeBaseRequest, type KnowledgeBaseSearchResponse } from '@waggle/contracts';
import { RpcHandler } from '@waggle/platform';
import { inSpan } from '@waggle/telemetry';
import { ChunkIndex } from '../index/chunk-index';
import { SearchLegs } from '../index/search-legs';
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

  /**
   * One span per search (`search {knowledge base id}`), the query's embedding inside it: the
   * search type that ran, the chunks answered and each leg's time, so a slow search shows which
   * leg it waited on. Never the query.
   */
  @RpcHandler(KnowledgeBasePatterns.search)
  search(request: SearchKnowledgeBaseRequest): Promise<KnowledgeBaseSearchResponse> {
    return inSpan(`search ${request.knowledge_base_id}`, { 'waggle.knowledge_base.id': request.knowledge_base_id }, async (span) => {
      const knowledgeBase = await this.knowledgeBases.getActive(request.workspace_id, request.knowledge_base_id);
      const type = request.search_type ?? knowledgeBase.searchType;
      span.setAttribute('waggle.search.type', type);
      const legs = span.isRecording() ? new SearchLegs() : undefined;
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
          legs,
        },
      );
      span.setAttributes({ 'waggle.search.chunks': chunks.length, ...legs?.attributes() });
      return { search_query: request.search_query, search_type: type, chunks };
    });
  }
}
