import { Injectable } from '@nestjs/common';
import { KnowledgeBasePatterns, send, SEARCH_CHUNK_LIMIT, type KnowledgeBaseSearchChunk } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import { NatsRpcClient } from '@waggle/platform';
import type { KnowledgeSearcher, ToolOutcome } from './agent-tools';

/** One passage of a `knowledge_search` observation. */
type KnowledgePassage = {
  knowledge_base_id: string;
  item_name: string;
  content: string;
  score: number;
};

/**
 * `knowledge_search` for an agent's runs: the knowledge-base service's search over each
 * attached knowledge base (with that knowledge base's own search type, limit and threshold),
 * the passages merged best first. A knowledge base that fails (deleted since it was
 * attached, a time-out) is named in the observation's `errors`; the run goes on.
 */
@Injectable()
export class AgentKnowledgeSearch {
  constructor(private readonly rpc: NatsRpcClient) {}

  searcher(workspaceId: string, knowledgeBaseIds: readonly string[]): KnowledgeSearcher {
    // A search is short: it is not aborted with the run, only bounded by its contract's time-out.
    return { search: (query) => this.search(workspaceId, knowledgeBaseIds, query) };
  }

  private async search(workspaceId: string, knowledgeBaseIds: readonly string[], query: string): Promise<ToolOutcome> {
    const settled = await Promise.allSettled(
      knowledgeBaseIds.map((knowledgeBaseId) =>
        send(this.rpc, KnowledgeBasePatterns.search, {
          workspace_id: workspaceId,
          knowledge_base_id: knowledgeBaseId,
          search_query: query,
        }),
      ),
    );
    const passages: KnowledgePassage[] = [];
    const errors: Array<{ knowledge_base_id: string; error: string }> = [];
    settled.forEach((outcome, index) => {
      const knowledgeBaseId = knowledgeBaseIds[index];
      if (outcome.status === 'fulfilled') {
        passages.push(
          ...outcome.value.chunks.map((chunk: KnowledgeBaseSearchChunk) => ({
            knowledge_base_id: knowledgeBaseId,
            item_name: chunk.item_name,
            content: chunk.content,
            score: chunk.score,
          })),
        );
      } else {
        const reason: unknown = outcome.reason;
        errors.push({
          knowledge_base_id: knowledgeBaseId,
          error: reason instanceof WaggleException ? reason.message : 'The search did not answer',
        });
      }
    });
    passages.sort((a, b) => b.score - a.score);
    const results = passages.slice(0, SEARCH_CHUNK_LIMIT.max);
    const observation = { query, results, ...(errors.length > 0 && { errors }) };
    return { observation, isError: results.length === 0 && errors.length === knowledgeBaseIds.length };
  }
}
