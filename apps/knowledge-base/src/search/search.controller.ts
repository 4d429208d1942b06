import { Controller } from '@nestjs/common';
import { KnowledgeBasePatterns, SearchKnowledgeBaseRequest, type KnowledgeBaseSearchResponse } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { RpcHandler } from '@waggle/platform';
import { LedgerPublisher, LedgerRun } from '@waggle/runs';
import { inSpan } from '@waggle/telemetry';
import { ChunkIndex } from '../index/chunk-index';
import { SearchLegs } from '../index/search-legs';
import { KnowledgeBasesService } from '../knowledge-bases/knowledge-bases.service';

/**
 * Search over NATS: the public route sends all four fields; other callers (an agent's
 * knowledge_search tool) may leave the last three out, and the knowledge base's own settings apply.
 * A search given a `request_id` (an MCP client's tool call) is a run of its own in the request
 * ledger, `knowledge_search` of the knowledge base, from the moment the knowledge base is found.
 */
@Controller()
export class SearchController {
  constructor(
    private readonly knowledgeBases: KnowledgeBasesService,
    private readonly index: ChunkIndex,
    private readonly ledger: LedgerPublisher,
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
      const run = request.request_id === undefined ? undefined : this.recorded(request, request.request_id, knowledgeBase.id);
      const startedAt = Date.now();
      const type = request.search_type ?? knowledgeBase.searchType;
      span.setAttribute('waggle.search.type', type);
      const legs = span.isRecording() ? new SearchLegs() : undefined;
      const searched = this.index.search(
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
      let chunks: Awaited<typeof searched>;
      try {
        chunks = await searched;
      } catch (error) {
        const failure = error instanceof WaggleException ? error : new WaggleException('internal_server_error');
        run?.finish('failed', Date.now() - startedAt, null, { error: failure.message, error_code: failure.code });
        throw error;
      }
      span.setAttributes({ 'waggle.search.chunks': chunks.length, ...legs?.attributes() });
      const answer: KnowledgeBaseSearchResponse = { search_query: request.search_query, search_type: type, chunks };
      // The chunks found, by id and score: their text is the knowledge base's.
      run?.finish('completed', Date.now() - startedAt, null, {
        search_type: type,
        chunks: chunks.map(({ id, knowledge_base_item_id, score }) => ({ id, knowledge_base_item_id, score })),
      });
      return answer;
    });
  }

  /** The search's ledger record, `running` from now: of the knowledge base, the query as its message. */
  private recorded(request: SearchKnowledgeBaseRequest, requestId: string, knowledgeBaseId: string): LedgerRun {
    return new LedgerRun(this.ledger, {
      request_id: requestId,
      workspace_id: request.workspace_id,
      request_type: 'knowledge_search',
      requestable_type: 'knowledge_base',
      requestable_id: knowledgeBaseId,
      deployment: null,
      variant: null,
      variant_id: null,
      version_id: null,
      version: null,
      model: null,
      message: request.search_query,
      metadata: {},
      user: null,
      ...(request.surface && { surface: request.surface }),
    });
  }
}
