import { WaggleException } from '@waggle/errors';
import { conversationMessages, imageUrls, lastUserText, renderMessages } from './prompt-messages';

describe('prompt messages', () => {
  const template = [
    { role: 'system' as const, content: 'You answer for {{ company }}.' },
    { role: 'user' as const, content: '{{ question }}' },
  ];

  it('renders every message with the inputs; missing variables render empty', () => {
    expect(renderMessages(template, { company: 'Acme' }, [])).toEqual([
      { role: 'system', content: 'You answer for Acme.' },
      { role: 'user', content: '' },
    ]);
  });

  it('attaches images from image inputs to the last user message', () => {
    const images = imageUrls(['photo', 'optional'], { photo: 'https://example.com/cat.png', optional: null });
    const messages = renderMessages(template, { company: 'Acme', question: 'What is this?' }, images);
    expect(messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', image: new URL('https://example.com/cat.png') },
      ],
    });
    expect(lastUserText(messages)).toBe('What is this? [image https://example.com/cat.png]');
  });

  it('refuses an image input that is not an http(s) URL', () => {
    for (const value of ['file:///etc/passwd', 'not a url', 42]) {
      expect(() => imageUrls(['photo'], { photo: value })).toThrow(WaggleException);
    }
  });

  it('never lets input text become template code', () => {
    const [, user] = renderMessages(template, { question: '{{ company }} {% raw %}' }, []);
    expect(user.content).toBe('{{ company }} {% raw %}');
  });
});

describe('conversationMessages', () => {
  it("writes a caller's conversation as model messages: images as URLs, tool calls and their results by name", () => {
    const messages = conversationMessages([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See' },
          { type: 'image', url: 'data:image/png;base64,AAAA' },
        ],
      },
      { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'c1', name: 'lookup', arguments: '{"q":"x"}' }] },
      { role: 'tool', content: 'found', tool_call_id: 'c1' },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See' },
          { type: 'image', image: new URL('data:image/png;base64,AAAA') },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'text', value: 'found' } }] },
    ]);
    // The ledger names an inline image by its media type, never its bytes.
    expect(lastUserText(messages)).toBe('See [image data:image/png]');
  });

  it('refuses a tool result for a call no earlier message made, and an image that is not an http(s) or data:image URL', () => {
    expect(() => conversationMessages([{ role: 'tool', content: 'x', tool_call_id: 'nope' }])).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'messages[0].tool_call_id' })] }),
    );
    expect(() => conversationMessages([{ role: 'user', content: [{ type: 'image', url: 'file:///etc/passwd' }] }])).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'messages[0].content[0].image_url.url' })] }),
    );
  });
});
