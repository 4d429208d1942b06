import { embeddingRequest, fakeEmbedding, openAIEmbeddings } from './embeddings';

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, index) => sum + value * b[index], 0);
const norm = (vector: number[]) => Math.sqrt(cosine(vector, vector));

describe('fakeEmbedding', () => {
  it('is deterministic and of unit length in the asked dimensions', () => {
    const vector = fakeEmbedding('Refunds are issued within 14 days', 64);
    expect(vector).toHaveLength(64);
    expect(norm(vector)).toBeCloseTo(1, 10);
    expect(fakeEmbedding('Refunds are issued within 14 days', 64)).toEqual(vector);
    expect(norm(fakeEmbedding('', 8))).toBe(1);
  });

  it('ranks texts that share words above unrelated ones', () => {
    const query = fakeEmbedding('how long do refunds take', 256);
    const related = fakeEmbedding('Refunds take up to 14 days to arrive', 256);
    const unrelated = fakeEmbedding('The office cat sleeps on the printer', 256);
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2);
    // Trigrams make word forms close too.
    expect(cosine(fakeEmbedding('refund', 256), fakeEmbedding('refunds', 256))).toBeGreaterThan(0.4);
  });
});

describe('embeddingRequest', () => {
  it('takes a string or an array of strings and the optional dimensions', () => {
    expect(embeddingRequest({ model: 'e', input: 'one' })).toEqual({ inputs: ['one'] });
    expect(embeddingRequest({ model: 'e', input: ['a', 'b'], dimensions: 8, encoding_format: 'float' })).toEqual({
      inputs: ['a', 'b'],
      dimensions: 8,
    });
  });

  it.each([
    [{ input: [] }, 'input must be a string or a non-empty array of strings'],
    [{ input: [[1, 2]] }, 'input must be a string or a non-empty array of strings'],
    [{ input: 'x', dimensions: 0 }, 'dimensions must be an integer from 1 to 4096'],
    [{ input: 'x', encoding_format: 'base64' }, 'the fake answers encoding_format float only'],
  ])('refuses %j', (body, reason) => {
    expect(embeddingRequest(body)).toBe(reason);
  });
});

describe('openAIEmbeddings', () => {
  it('answers one vector per input in order, with words counted as prompt tokens', () => {
    const answer = openAIEmbeddings('e', { inputs: ['a b', 'c'] }, 4);
    expect(answer).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: fakeEmbedding('a b', 4) },
        { object: 'embedding', index: 1, embedding: fakeEmbedding('c', 4) },
      ],
      model: 'e',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    expect(openAIEmbeddings('e', { inputs: ['a'] }, 4, 99).usage).toEqual({ prompt_tokens: 99, total_tokens: 99 });
  });
});
