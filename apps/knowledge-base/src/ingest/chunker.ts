import { decode, encode } from 'gpt-tokenizer';
import type { ItemChunk } from '../index/chunk-index';

export interface ChunkingOptions {
  /** Tokens of one chunk at most. */
  maxTokens: number;
  /** Tokens each chunk repeats of the end of the one before (less than maxTokens). */
  overlapTokens: number;
}

interface Piece {
  text: string;
  tokens: number;
}

const PARAGRAPH_BREAK = /\n[ \t]*\n+/;
// A sentence ends at . ! ? (optionally closed by a quote or bracket) followed by white space.
const SENTENCE_END = /(?<=[.!?]["')\]]?)\s+/;
const SEPARATOR = '\n\n';

const countTokens = (text: string): number => encode(text).length;

/** Text cut into pieces of at most `maxTokens` tokens: whole if it fits, else by sentences, else by tokens. */
function piecesOf(text: string, maxTokens: number): Piece[] {
  const tokens = countTokens(text);
  if (tokens <= maxTokens) return [{ text, tokens }];
  const sentences = text.split(SENTENCE_END).filter((sentence) => sentence.trim() !== '');
  if (sentences.length > 1) return sentences.flatMap((sentence) => piecesOf(sentence, maxTokens));
  // One sentence longer than a chunk (a table row, a minified blob): cut by tokens.
  const encoded = encode(text);
  const pieces: Piece[] = [];
  for (let start = 0; start < encoded.length; start += maxTokens) {
    const slice = encoded.slice(start, start + maxTokens);
    pieces.push({ text: decode(slice), tokens: slice.length });
  }
  return pieces;
}

/** The end of `pieces` to repeat at the start of the next chunk: whole pieces when they fit in `overlapTokens`, else the last tokens. */
function overlapOf(pieces: Piece[], overlapTokens: number): Piece[] {
  if (overlapTokens === 0 || pieces.length === 0) return [];
  const kept: Piece[] = [];
  let total = 0;
  for (let index = pieces.length - 1; index >= 0; index--) {
    const piece = pieces[index];
    if (total + piece.tokens > overlapTokens) break;
    kept.unshift(piece);
    total += piece.tokens;
  }
  if (kept.length > 0) return kept;
  const tail = encode(pieces[pieces.length - 1].text).slice(-overlapTokens);
  return [{ text: decode(tail).trimStart(), tokens: tail.length }];
}

/**
 * A document's text as chunks of at most `maxTokens` tokens (gpt-tokenizer's o200k counts),
 * cut at paragraph boundaries where it can, else at sentence boundaries, else inside a
 * sentence; each chunk after the first starts with up to `overlapTokens` tokens of the end
 * of the one before, so a passage cut in two is still found whole in one of them.
 */
export function chunkText(text: string, options: ChunkingOptions): ItemChunk[] {
  const maxTokens = Math.max(1, options.maxTokens);
  const overlapTokens = Math.max(0, Math.min(options.overlapTokens, Math.floor(maxTokens / 2)));
  const separatorTokens = countTokens(SEPARATOR);
  const paragraphs = text
    .split(PARAGRAPH_BREAK)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  // Pieces leave room for the overlap, so a chunk that starts with one still holds a whole piece.
  const pieces = paragraphs.flatMap((paragraph) => piecesOf(paragraph, maxTokens - overlapTokens - separatorTokens));

  const chunks: ItemChunk[] = [];
  let current: Piece[] = [];
  let currentTokens = 0;
  let fresh = 0;
  const emit = () => {
    const content = current.map((piece) => piece.text).join(SEPARATOR);
    chunks.push({ position: chunks.length, content, tokens: countTokens(content) });
    current = overlapOf(current, overlapTokens);
    currentTokens = current.reduce((sum, piece) => sum + piece.tokens + separatorTokens, 0);
    fresh = 0;
  };
  for (const piece of pieces) {
    if (fresh > 0 && currentTokens + piece.tokens > maxTokens) emit();
    current.push(piece);
    currentTokens += piece.tokens + separatorTokens;
    fresh++;
  }
  if (fresh > 0) emit();
  return chunks;
}
