import { WaggleException } from '@waggle/errors';
import { imageUrls, lastUserText, renderMessages } from './prompt-messages';

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
