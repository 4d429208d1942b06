import type { KnowledgeBaseSearchChunk, KnowledgeBaseSearchType } from '@waggle/contracts';
import type { SearchLegs } from './search-legs';

/** What the index needs to know of a knowledge base. */
export interface IndexedKnowledgeBase {
  id: string;
  workspace_id: string;
  /** The model its chunks are embedded with (a catalog model id), fixed at creation. */
  embedding_model: string;
  /** The vectors' length; null until the first item is indexed. */
  embedding_dimensions: number | null;
}

/** The item whose chunks are indexed. Its name is stored with each chunk (items are never renamed). */
export interface IndexedItem {
  id: string;
  name: string;
}

/** One chunk of an item's text, as the chunker made it. */
export interface ItemChunk {
  /** From 0, in document order. */
  position: number;
  content: string;
  /** Tokens of `content` by the chunker's tokenizer. */
  tokens: number;
}

export interface ChunkSearch {
  query: string;
  type: KnowledgeBaseSearchType;
  /** 1 to 20. */
  limit: number;
  /** 0 to 1: chunks whose `score` is below are left out. */
  threshold: number;
  /** Where the search's legs are timed, when its span is recorded. */
  legs?: SearchLegs;
}

export interface IndexedItemResult {
  chunks: number;
  dimensions: number;
}

/**
 * The search index of the knowledge-base service: chunks, their full-text postings and their
 * vectors, in the service's schema. Ingestion (parse, chunk) hands it an item's chunks;
 * search asks it; cleanup empties it. The one seam between the two halves of the service.
 */
export abstract class ChunkIndex {
  /**
   * Embeds `chunks` with the knowledge base's model (in batches, off the event loop), then
   * in one transaction removes whatever an earlier attempt left for this item, writes its
   * chunks, postings and vectors, and runs `complete` in that same transaction (where the
   * caller marks the item completed and records the dimensions: any repository call it makes
   * joins the transaction). So an item is either fully indexed and completed, or has nothing
   * in the index. Rejects, writing nothing, when the embedding fails or `signal` aborts.
   */
  abstract indexItem(
    knowledgeBase: IndexedKnowledgeBase,
    item: IndexedItem,
    chunks: readonly ItemChunk[],
    complete: (result: IndexedItemResult) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<IndexedItemResult>;

  /** The best chunks of the knowledge base for the query, best first (decisions: search response). */
  abstract search(knowledgeBase: IndexedKnowledgeBase, search: ChunkSearch): Promise<KnowledgeBaseSearchChunk[]>;

  /**
   * Removes up to `limit` chunks of the knowledge base with their postings and vectors, in
   * one short transaction; answers how many it removed (0: nothing is left). Cleanup calls
   * it until 0, so a cleanup that dies mid-way resumes where it stopped.
   */
  abstract removeChunks(knowledgeBaseId: string, limit: number): Promise<number>;
}
