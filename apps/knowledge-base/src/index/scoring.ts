/**
 * The pure arithmetic of search: BM25's parameters and scale, cosine's scale, the fusion of
 * hybrid search, and the exact path's vector maths. Every score leaves here in [0, 1].
 */

/** BM25's term-frequency saturation and length normalization (the usual Lucene/Robertson values). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * A BM25 score as a fraction of the most the query could score: each query term's idf times
 * its query frequency times (k1 + 1), the limit of a term's saturation as its frequency grows.
 * So 1 is unreachable, a chunk matching every term once at average length scores about 0.45,
 * and the scale does not depend on the other chunks found.
 */
export function normalizedBm25(score: number, maxAttainable: number): number {
  if (!(maxAttainable > 0) || !(score > 0)) return 0;
  return Math.min(1, score / maxAttainable);
}

/** Cosine similarity clipped to [0, 1]: opposite and unrelated vectors both score 0. */
export function cosineScore(similarity: number): number {
  if (!Number.isFinite(similarity)) return 0;
  return Math.min(1, Math.max(0, similarity));
}

export interface FusionWeights {
  fullText: number;
  vector: number;
  /** RRF's rank constant: the larger, the flatter the weight of rank. */
  rankConstant: number;
}

/**
 * Weighted reciprocal-rank fusion: a chunk scores Σ weight / (rankConstant + rank) over the
 * lists it is in (rank from 1), divided by the most any chunk could score (first in both
 * lists), so the fused score is in [0, 1] and 1 means first on both sides. Answers chunk
 * ids best first; ties keep the full-text order, then the vector order.
 */
export function reciprocalRankFusion(
  fullText: readonly string[],
  vector: readonly string[],
  weights: FusionWeights,
): Array<{ id: string; score: number }> {
  const maximum = (weights.fullText + weights.vector) / (weights.rankConstant + 1);
  const fused = new Map<string, number>();
  const add = (ids: readonly string[], weight: number) =>
    ids.forEach((id, index) => fused.set(id, (fused.get(id) ?? 0) + weight / (weights.rankConstant + index + 1)));
  add(fullText, weights.fullText);
  add(vector, weights.vector);
  const order = new Map<string, number>();
  for (const id of [...fullText, ...vector]) if (!order.has(id)) order.set(id, order.size);
  return [...fused]
    .map(([id, score]) => ({ id, score: maximum > 0 ? Math.min(1, score / maximum) : 0 }))
    .sort((a, b) => b.score - a.score || (order.get(a.id) as number) - (order.get(b.id) as number));
}

/** A vector as the exact path stores it: little-endian float32 bytes. */
export function encodeVector(vector: readonly number[]): Buffer {
  const buffer = Buffer.allocUnsafe(vector.length * 4);
  vector.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer;
}

export function decodeVector(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4);
  for (let index = 0; index < vector.length; index++) vector[index] = bytes.readFloatLE(index * 4);
  return vector;
}

/** Cosine similarity; 0 when either vector is all zeros or their lengths differ. */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index] * b[index];
    normA += a[index] * a[index];
    normB += b[index] * b[index];
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/** The `limit` best of scored entries, best first (ties by id, so answers are stable). */
export function topByScore<T extends { id: string; score: number }>(entries: Iterable<T>, limit: number): T[] {
  const best: T[] = [];
  const worse = (a: T, b: T) => a.score < b.score || (a.score === b.score && a.id > b.id);
  for (const entry of entries) {
    if (best.length === limit && !worse(best[best.length - 1], entry)) continue;
    let index = best.length;
    while (index > 0 && worse(best[index - 1], entry)) index--;
    best.splice(index, 0, entry);
    if (best.length > limit) best.pop();
  }
  return best;
}
