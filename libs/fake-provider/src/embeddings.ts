import { countWords, MAX_EMBEDDING_DIMENSIONS } from './behaviour';

type Json = Record<string, unknown>;

/** An OpenAI-compatible `/v1/embeddings` request, as the fake understood it. */
export interface FakeEmbeddingRequest {
  inputs: string[];
  /** Unset: the behaviour's `embeddingDimensions`. */
  dimensions?: number;
}

/** Reads an embeddings request body; a string is the reason it is not one. */
export function embeddingRequest(body: Json): FakeEmbeddingRequest | string {
  const input = body.input;
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((value) => typeof value === 'string')) {
    return 'input must be a string or a non-empty array of strings';
  }
  if (body.encoding_format !== undefined && body.encoding_format !== 'float') return 'the fake answers encoding_format float only';
  const { dimensions } = body;
  if (dimensions === undefined) return { inputs };
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_EMBEDDING_DIMENSIONS) {
    return `dimensions must be an integer from 1 to ${MAX_EMBEDDING_DIMENSIONS}`;
  }
  return { inputs, dimensions };
}

/** 32-bit FNV-1a: fast, stable across runs and processes, good enough to spread features. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Whole words weigh more than their character trigrams, so shared words dominate similarity. */
const WORD_WEIGHT = 1;
const TRIGRAM_WEIGHT = 0.5;

/**
 * A deterministic unit vector for a text: its lower-cased words and their character trigrams,
 * each hashed to a dimension and a sign. Texts sharing words (or word pieces) share features,
 * so their cosine similarity is higher than that of unrelated texts, which lets
 * knowledge-base search be tested for ranking without a real model. A text with no words
 * answers the first unit vector, so every answer has unit length.
 */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number): void => {
    const hash = fnv1a(feature);
    vector[hash % dimensions] += hash & 0x80000000 ? -weight : weight;
  };
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    add(`w:${word}`, WORD_WEIGHT);
    const padded = `#${word}#`;
    for (let start = 0; start + 3 <= padded.length; start += 1) add(`t:${padded.slice(start, start + 3)}`, TRIGRAM_WEIGHT);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  if (norm === 0) return vector.map((_, index) => (index === 0 ? 1 : 0));
  return vector.map((value) => value / norm);
}

/** The OpenAI embeddings answer: one vector per input, in order; a word is a token, as in chat. */
export function openAIEmbeddings(model: string, request: FakeEmbeddingRequest, dimensions: number, promptTokens?: number): Json {
  const tokens = promptTokens ?? request.inputs.reduce((sum, input) => sum + countWords(input), 0);
  return {
    object: 'list',
    data: request.inputs.map((input, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(input, dimensions) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
