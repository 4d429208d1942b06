import { cosineScore, cosineSimilarity, decodeVector, encodeVector, normalizedBm25, reciprocalRankFusion, topByScore } from './scoring';

describe('normalizedBm25', () => {
  it('is the fraction of the maximum attainable score, 0 without a match or a maximum', () => {
    expect(normalizedBm25(1.1, 4.4)).toBe(0.25);
    expect(normalizedBm25(0, 4.4)).toBe(0);
    expect(normalizedBm25(1, 0)).toBe(0);
    expect(normalizedBm25(5, 4)).toBe(1);
  });
});

describe('cosineScore', () => {
  it('clips to [0, 1]', () => {
    expect(cosineScore(-0.4)).toBe(0);
    expect(cosineScore(0.73)).toBe(0.73);
    expect(cosineScore(1.0000001)).toBe(1);
    expect(cosineScore(Number.NaN)).toBe(0);
  });
});

describe('reciprocalRankFusion', () => {
  const weights = { fullText: 1, vector: 0.5, rankConstant: 60 };

  it('scores Σ weight / (k + rank) over the lists, normalized to first-on-both = 1', () => {
    const fused = reciprocalRankFusion(['a', 'b', 'c'], ['a', 'c', 'd'], weights);
    const maximum = 1.5 / 61;
    expect(fused).toEqual([
      { id: 'a', score: 1 },
      { id: 'c', score: (1 / 63 + 0.5 / 62) / maximum },
      { id: 'b', score: 1 / 62 / maximum },
      { id: 'd', score: 0.5 / 63 / maximum },
    ]);
  });

  it('lets the heavier side win a disagreement and keeps the full-text order on ties', () => {
    expect(reciprocalRankFusion(['x', 'y'], ['y', 'x'], weights).map((entry) => entry.id)).toEqual(['x', 'y']);
    const even = { fullText: 1, vector: 1, rankConstant: 60 };
    expect(reciprocalRankFusion(['x', 'y'], ['y', 'x'], even).map((entry) => entry.id)).toEqual(['x', 'y']);
    expect(reciprocalRankFusion(['x'], ['y'], even).map((entry) => entry.id)).toEqual(['x', 'y']);
  });

  it('with a zero vector weight keeps the full-text ranking exactly', () => {
    const fused = reciprocalRankFusion(['c', 'b', 'a'], ['a', 'b', 'z'], { fullText: 1, vector: 0, rankConstant: 60 });
    expect(fused.slice(0, 3).map((entry) => entry.id)).toEqual(['c', 'b', 'a']);
    expect(fused[3]).toEqual({ id: 'z', score: 0 });
  });
});

describe('vectors', () => {
  it('round-trips float32 bytes', () => {
    const bytes = encodeVector([0.5, -1.25, 3]);
    expect(bytes).toHaveLength(12);
    expect([...decodeVector(bytes)]).toEqual([0.5, -1.25, 3]);
  });

  it('computes cosine similarity, 0 for a zero vector or a length mismatch', () => {
    expect(cosineSimilarity([1, 0], [1, 0])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([1, 0], [0, 2])).toBe(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1, 12);
    expect(cosineSimilarity([1, 2], [2, 4])).toBeCloseTo(1, 12);
    expect(cosineSimilarity([0, 0], [1, 2])).toBe(0);
    expect(cosineSimilarity([1], [1, 2])).toBe(0);
  });

  it('keeps the best entries, best first, ties by id', () => {
    const entries = [
      { id: 'a', score: 0.2 },
      { id: 'b', score: 0.9 },
      { id: 'd', score: 0.5 },
      { id: 'c', score: 0.5 },
      { id: 'e', score: 0.1 },
    ];
    expect(topByScore(entries, 3)).toEqual([entries[1], entries[3], entries[2]]);
    expect(topByScore(entries, 10)).toHaveLength(5);
    expect(topByScore([], 3)).toEqual([]);
  });
});
