import { MAX_MCP_TOOL_RESULT_BYTES, toolResultOf, truncateToolText } from './tool-result';

describe('truncateToolText', () => {
  it('leaves text within the cap alone', () => {
    expect(truncateToolText('short')).toEqual({ text: 'short', truncated: false });
    const exact = 'x'.repeat(MAX_MCP_TOOL_RESULT_BYTES);
    expect(truncateToolText(exact)).toEqual({ text: exact, truncated: false });
  });

  it('cuts at the cap and appends a notice naming both sizes', () => {
    const { text, truncated } = truncateToolText('abcdefghij', 4);
    expect(truncated).toBe(true);
    expect(text).toBe("abcd\n\n[truncated: the tool's result was 10 bytes; only the first 4 are shown]");
  });

  it('never cuts inside a character: two-, three- and four-byte ones', () => {
    for (const char of ['é', '✓', '😀']) {
      const whole = `ab${char.repeat(10)}`;
      for (let cap = 2; cap < Buffer.byteLength(whole); cap++) {
        const { text } = truncateToolText(whole, cap);
        const kept = text.split('\n\n[truncated')[0];
        expect(kept).not.toContain('\ufffd');
        expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(cap);
        expect(Buffer.byteLength(kept)).toBeGreaterThan(cap - Buffer.byteLength(char));
        expect(whole.startsWith(kept)).toBe(true);
      }
    }
  });
});

describe('toolResultOf', () => {
  it('joins text blocks, one per line, and keeps an object structured content', () => {
    expect(
      toolResultOf({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
        structuredContent: { n: 2 },
      }),
    ).toEqual({ isError: false, text: 'one\ntwo', structuredContent: { n: 2 }, truncated: false });
  });

  it('names content that is not text, and reads an embedded text resource', () => {
    const result = toolResultOf({
      content: [
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AA' } },
        { type: 'resource_link', uri: 'https://example.com/x', name: 'x' },
      ],
    });
    expect(result.text).toBe(
      '[image: image/png]\n[audio: audio/wav]\ninside\n[resource: file:///b.bin (application/octet-stream)]\n[resource link: x https://example.com/x]',
    );
  });

  it('answers the structured content as JSON when there is no content, and drops one that is not an object', () => {
    expect(toolResultOf({ content: [], structuredContent: { sum: 3 } })).toEqual({
      isError: false,
      text: '{"sum":3}',
      structuredContent: { sum: 3 },
      truncated: false,
    });
    expect(toolResultOf({ content: [], structuredContent: [1, 2] })).toEqual({ isError: false, text: '[1,2]', truncated: false });
  });

  it('carries isError and truncation', () => {
    const result = toolResultOf({ content: [{ type: 'text', text: 'é'.repeat(10) }], isError: true }, 5);
    expect(result.isError).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith('éé\n\n[truncated')).toBe(true);
  });
});
