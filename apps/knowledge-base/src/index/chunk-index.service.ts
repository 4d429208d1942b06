import type { KnowledgeBaseSearchChunk } from '@waggle/contracts';
import { WaggleException, type ErrorDetail } from '@waggle/errors';
import { LOCAL_EMBEDDING_MODELS } from '@waggle/providers';
import { inSpan } from '@waggle/telemetry';
import type { ChunkEmbedder } from './chunk-embedder';
import {
  ChunkIndex,
  type ChunkSearch,
  type IndexedItem,
  type IndexedItemResult,
  type IndexedKnowledgeBase,
  type ItemChunk,
} from './chunk-index';
import type { ChunksRepository } from './chunks.repository';
import { cosineScore, cosineSimilarity, normalizedBm25, reciprocalRankFusion, topByScore, type FusionWeights } from './scoring';
import { timedLeg, type SearchLegs } from './search-legs';
import { HNSW_MAX_DIMENSIONS, type VectorPath } from './vector-path';

export interface ChunkIndexOptions {
  /** How the two sides of a hybrid search are fused. */
  fusion: FusionWeights;
  /** The vector weight instead of `fusion.vector` for knowledge bases embedded by a local (weak) model. */
  localVectorWeight: number;
  /** Chunks each side of a hybrid search proposes before fusion (at least the limit). */
  hybridCandidates: number;
}

interface Scored {
  id: string;
  score: number;
}

/**
 * The knowledge-base service's search index over ChunksRepository: chunks embedded and written
 * with their item's completion, BM25 and vector rankings (pgvector HNSW, or an exact scan here;
 * see VectorPath) and their fusion.
 */
export class ChunkIndexService extends ChunkIndex {
  /** Dimensions whose HNSW index this process knows exists. */
  private readonly indexedDimensions = new Set<number>();

  constructor(
    private readonly repository: ChunksRepository,
    private readonly embedder: ChunkEmbedder,
    readonly vectorPath: VectorPath,
    private readonly options: ChunkIndexOptions,
  ) {
    super();
  }

  async indexItem(
    knowledgeBase: IndexedKnowledgeBase,
    item: IndexedItem,
    chunks: readonly ItemChunk[],
    complete: (result: IndexedItemResult) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<IndexedItemResult> {
    signal?.throwIfAborted();
    // Two phases, each a span of the item's ingestion: every chunk embedded (the batches in
    // order), then everything written in one transaction.
    const vectors = await inSpan('embed', { 'waggle.ingest.chunks': chunks.length }, async () =>
      chunks.length > 0
        ? this.embedder.embed(
            knowledgeBase.embedding_model,
            chunks.map((chunk) => chunk.content),
            signal,
          )
        : [],
    );
    const dimensions = this.checkVectors(knowledgeBase, vectors, chunks.length);
    return inSpan('index', { 'waggle.ingest.chunks': chunks.length }, async () => {
      if (vectors.length > 0) await this.ensureVectorIndex(dimensions);
      signal?.throwIfAborted();
      const result: IndexedItemResult = { chunks: chunks.length, dimensions };
      await this.repository.transaction(async () => {
        await this.repository.replaceItem(this.vectorPath, knowledgeBase, item, chunks, vectors);
        signal?.throwIfAborted();
        await complete(result);
      });
      return result;
    });
  }

  async search(knowledgeBase: IndexedKnowledgeBase, search: ChunkSearch): Promise<KnowledgeBaseSearchChunk[]> {
    let ranked: Array<{ id: string; score: number; fullText: number | null; vector: number | null }>;
    const legs = search.legs;
    if (search.type === 'full_text') {
      const found = await timedLeg(legs, 'keyword', () => this.fullTextRanking(knowledgeBase.id, search.query, search.limit, null));
      ranked = found.map(({ id, score }) => ({ id, score, fullText: score, vector: null }));
    } else if (search.type === 'vector') {
      const query = await this.queryVector(knowledgeBase, search.query, legs);
      const found = query ? await timedLeg(legs, 'vector', () => this.vectorRanking(knowledgeBase.id, query, search.limit)) : [];
      ranked = found.map(({ id, score }) => ({ id, score, fullText: null, vector: score }));
    } else {
      ranked = await this.hybridRanking(knowledgeBase, search);
    }
    const kept = ranked.filter((entry) => entry.score >= search.threshold).slice(0, search.limit);
    if (kept.length === 0) return [];
    const rows = await this.repository.chunks(
      knowledgeBase.id,
      kept.map((entry) => entry.id),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return kept.flatMap((entry) => {
      const row = byId.get(entry.id);
      if (!row) return [];
      return [
        {
          id: row.id,
          knowledge_base_item_id: row.item_id,
          item_name: row.item_name,
          content: row.content,
          score: entry.score,
          scores: { full_text: entry.fullText, vector: entry.vector },
          position: row.position,
        },
      ];
    });
  }

  removeChunks(knowledgeBaseId: string, limit: number): Promise<number> {
    return this.repository.removeChunks(knowledgeBaseId, limit);
  }

  /** Both sides' candidates fused; each chunk kept gets the other side's score too. */
  private async hybridRanking(knowledgeBase: IndexedKnowledgeBase, search: ChunkSearch) {
    const candidates = Math.max(search.limit, this.options.hybridCandidates);
    const legs = search.legs;
    const [fullText, vector] = await Promise.all([
      timedLeg(legs, 'keyword', () => this.fullTextRanking(knowledgeBase.id, search.query, candidates, null)),
      this.queryVector(knowledgeBase, search.query, legs).then(async (query) => ({
        query,
        found: query ? await timedLeg(legs, 'vector', () => this.vectorRanking(knowledgeBase.id, query, candidates)) : [],
      })),
    ]);
    const local = LOCAL_EMBEDDING_MODELS[knowledgeBase.embedding_model] !== undefined;
    const fused = reciprocalRankFusion(
      fullText.map((entry) => entry.id),
      vector.found.map((entry) => entry.id),
      local ? { ...this.options.fusion, vector: this.options.localVectorWeight } : this.options.fusion,
    ).slice(0, search.limit);
    const fullTextScores = new Map(fullText.map((entry) => [entry.id, entry.score]));
    const vectorScores = new Map(vector.found.map((entry) => [entry.id, entry.score]));
    const missingFullText = fused.filter((entry) => !fullTextScores.has(entry.id)).map((entry) => entry.id);
    const missingVector = fused.filter((entry) => !vectorScores.has(entry.id)).map((entry) => entry.id);
    const query = vector.query;
    const [moreFullText, moreVector] = await Promise.all([
      missingFullText.length > 0
        ? timedLeg(legs, 'keyword', () => this.fullTextRanking(knowledgeBase.id, search.query, missingFullText.length, missingFullText))
        : [],
      missingVector.length > 0 && query ? timedLeg(legs, 'vector', () => this.vectorScores(knowledgeBase.id, query, missingVector)) : [],
    ]);
    for (const entry of moreFullText) fullTextScores.set(entry.id, entry.score);
    for (const entry of moreVector) vectorScores.set(entry.id, entry.score);
    return fused.map(({ id, score }) => ({ id, score, fullText: fullTextScores.get(id) ?? 0, vector: vectorScores.get(id) ?? 0 }));
  }

  /** BM25 ranking as fractions of the query's maximum attainable score, best first. */
  private async fullTextRanking(knowledgeBaseId: string, query: string, limit: number, only: string[] | null): Promise<Scored[]> {
    const rows = await this.repository.bm25(knowledgeBaseId, query, limit, only);
    return rows.map((row) => ({ id: row.id, score: normalizedBm25(row.score, row.maximum) }));
  }

  /** The query's vector, or null when the knowledge base has no vectors yet. */
  private async queryVector(knowledgeBase: IndexedKnowledgeBase, query: string, legs?: SearchLegs): Promise<number[] | null> {
    if (knowledgeBase.embedding_dimensions === null) return null;
    const [vector] = await timedLeg(legs, 'embed', () => this.embedder.embed(knowledgeBase.embedding_model, [query]));
    this.checkVectors(knowledgeBase, [vector], 1);
    return vector;
  }

  /** The nearest chunks by cosine, scores clipped to [0, 1], best first. */
  private async vectorRanking(knowledgeBaseId: string, query: number[], limit: number): Promise<Scored[]> {
    if (this.vectorPath.kind === 'exact') {
      const stored = await this.repository.embeddingsOf(knowledgeBaseId, query.length);
      return topByScore(
        stored.map(({ id, vector }) => ({ id, score: cosineScore(cosineSimilarity(query, vector)) })),
        limit,
      );
    }
    const nearest = await this.repository.nearestVectors(this.vectorPath.schema, knowledgeBaseId, query, limit);
    return topByScore(
      nearest.map(({ id, distance }) => ({ id, score: cosineScore(1 - distance) })),
      limit,
    );
  }

  /** Cosine scores of the given chunks. */
  private async vectorScores(knowledgeBaseId: string, query: number[], ids: string[]): Promise<Scored[]> {
    if (this.vectorPath.kind === 'exact') {
      const stored = await this.repository.embeddingsById(knowledgeBaseId, ids);
      return stored.map(({ id, vector }) => ({ id, score: cosineScore(cosineSimilarity(query, vector)) }));
    }
    const distances = await this.repository.vectorDistances(this.vectorPath.schema, knowledgeBaseId, query, ids);
    return distances.map(({ id, distance }) => ({ id, score: cosineScore(1 - distance) }));
  }

  /**
   * The HNSW cosine index of one dimension, a partial expression index made when the
   * dimension first appears, under an advisory lock so replicas do not race to create it.
   */
  private async ensureVectorIndex(dimensions: number): Promise<void> {
    if (this.vectorPath.kind !== 'pgvector' || dimensions > HNSW_MAX_DIMENSIONS || this.indexedDimensions.has(dimensions)) return;
    await this.repository.createVectorIndex(this.vectorPath.schema, dimensions);
    this.indexedDimensions.add(dimensions);
  }

  /** One vector per chunk, all of the knowledge base's dimension, all finite. Answers the dimension. */
  private checkVectors(knowledgeBase: IndexedKnowledgeBase, vectors: number[][], expected: number): number {
    const dimensions = vectors[0]?.length ?? knowledgeBase.embedding_dimensions ?? 0;
    const model = knowledgeBase.embedding_model;
    const fail = (text: ErrorDetail) => {
      throw new WaggleException('provider_error', { ...text, details: { model } });
    };
    if (vectors.length !== expected) fail({ detail: 'embedding_vector_count', params: { model, count: vectors.length, expected } });
    for (const vector of vectors) {
      if (vector.length === 0 || vector.length !== dimensions)
        fail({ detail: 'embedding_vector_dimensions', params: { model, dimensions: vector.length, expected: dimensions } });
      if (!vector.every(Number.isFinite)) fail({ detail: 'embedding_vector_not_finite', params: { model } });
    }
    if (knowledgeBase.embedding_dimensions !== null && vectors.length > 0 && dimensions !== knowledgeBase.embedding_dimensions) {
      fail({ detail: 'embedding_dimensions_changed', params: { model, dimensions, expected: String(knowledgeBase.embedding_dimensions) } });
    }
    return dimensions;
  }
}
