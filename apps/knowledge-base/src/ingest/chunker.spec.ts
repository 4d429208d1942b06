import { encode } from 'gpt-tokenizer';
import { chunkText } from './chunker';

const paragraph = (index: number, sentences = 4) =>
  Array.from(
    { length: sentences },
    (_, sentence) => `Paragraph ${index} sentence ${sentence} tells about topic ${index * 10 + sentence} in some detail.`,
  ).join(' ');

describe('chunkText', () => {
  it('keeps a short text as one chunk, with its token count and position 0', () => {
    expect(chunkText('Hello world.\n\nSecond paragraph.', { maxTokens: 400, overlapTokens: 50 })).toEqual([
      { position: 0, content: 'Hello world.\n\nSecond paragraph.', tokens: encode('Hello world.\n\nSecond paragraph.').length },
    ]);
  });

  it('answers no chunks for an empty or blank text', () => {
    expect(chunkText('', { maxTokens: 100, overlapTokens: 10 })).toEqual([]);
    expect(chunkText(' \n\n \t\n', { maxTokens: 100, overlapTokens: 10 })).toEqual([]);
  });

  it('never exceeds the token budget, numbers chunks in order, and loses no paragraph', () => {
    const paragraphs = Array.from({ length: 40 }, (_, index) => paragraph(index));
    const chunks = chunkText(paragraphs.join('\n\n'), { maxTokens: 120, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(5);
    chunks.forEach((chunk, index) => {
      expect(chunk.position).toBe(index);
      expect(chunk.tokens).toBe(encode(chunk.content).length);
      expect(chunk.tokens).toBeLessThanOrEqual(120);
    });
    const all = chunks.map((chunk) => chunk.content).join('\n\n');
    for (const text of paragraphs) for (const sentence of text.split(/(?<=\.)\s+/)) expect(all).toContain(sentence);
  });

  it('cuts at paragraph boundaries when paragraphs fit, and repeats the end of each chunk at the start of the next', () => {
    const paragraphs = Array.from({ length: 12 }, (_, index) => paragraph(index, 1));
    const chunks = chunkText(paragraphs.join('\n\n'), { maxTokens: 60, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) for (const part of chunk.content.split('\n\n')) expect(paragraphs).toContain(part);
    for (let index = 1; index < chunks.length; index++) {
      const previousParts = chunks[index - 1].content.split('\n\n');
      expect(chunks[index].content.startsWith(previousParts[previousParts.length - 1])).toBe(true);
    }
  });

  it('splits a paragraph longer than a chunk at sentence ends, and a sentence longer than a chunk by tokens', () => {
    const long = paragraph(1, 30);
    const bySentence = chunkText(long, { maxTokens: 80, overlapTokens: 0 });
    expect(bySentence.length).toBeGreaterThan(1);
    for (const chunk of bySentence) {
      expect(chunk.tokens).toBeLessThanOrEqual(80);
      expect(chunk.content).toMatch(/\.$/);
    }
    const blob = 'x'.repeat(5000);
    const byTokens = chunkText(blob, { maxTokens: 50, overlapTokens: 10 });
    expect(byTokens.length).toBeGreaterThan(1);
    for (const chunk of byTokens) expect(chunk.tokens).toBeLessThanOrEqual(50);
  });
});
