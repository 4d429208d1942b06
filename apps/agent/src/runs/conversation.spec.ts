import type { StoredTurn } from '../threads/thread-turns';
import { buildConversation, checkRunAttachments, readableDocuments } from './conversation';

const base = {
  instructionPrompt: 'Be brief.',
  documents: [],
  stored: [] as StoredTurn[],
  callerMessages: [],
  checked: { current: { documents: [], images: [] }, history: [] },
  message: 'Now',
  contextLimit: 0,
  answerTokens: 100,
};

const turn = (role: 'user' | 'assistant', content: string, attachments: StoredTurn['attachments'] = []): StoredTurn => ({
  role,
  content,
  attachments,
});

describe('buildConversation', () => {
  it('orders the system prompt, stored turns, caller messages and the new message', () => {
    const { messages, omittedTurns } = buildConversation({
      ...base,
      stored: [turn('user', 'Hi'), turn('assistant', 'Hello')],
      callerMessages: [{ role: 'assistant', content: 'From the caller' }],
      checked: { current: { documents: [], images: [] }, history: [{ documents: [], images: [] }] },
    });
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ['system', 'Be brief.'],
      ['user', 'Hi'],
      ['assistant', 'Hello'],
      ['assistant', 'From the caller'],
      ['user', 'Now'],
    ]);
    expect(omittedTurns).toBe(0);
  });

  it('leaves out the oldest stored turns that do not fit the context, keeping everything else', () => {
    const long = 'x'.repeat(400); // about 100 tokens plus framing
    const stored = [turn('user', `a${long}`), turn('assistant', `b${long}`), turn('user', `c${long}`), turn('assistant', `d${long}`)];
    // Room for the fixed messages, the answer and about two stored turns.
    const { messages, omittedTurns } = buildConversation({ ...base, stored, contextLimit: 100 + 20 + 250 });
    expect(omittedTurns).toBe(2);
    expect(messages.map((message) => String(message.content)[0])).toEqual(['B', 'c', 'd', 'N']);
  });

  it('lists readable documents in an <available_files> manifest and sends images as image parts', () => {
    const checked = checkRunAttachments({
      attachments: ['https://files.example/report.pdf'],
      image_urls: ['https://files.example/cat.png'],
    });
    const documents = readableDocuments(checked, []);
    const { messages } = buildConversation({ ...base, documents, checked });
    expect(messages[0].content).toContain('<available_files>');
    expect(messages[0].content).toContain('url="https://files.example/report.pdf"');
    expect(messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'Now' },
      { type: 'image', image: new URL('https://files.example/cat.png') },
    ]);
  });
});

describe('readableDocuments', () => {
  it('authorizes structured attachments of the current message, caller messages and stored turns, each once', () => {
    const checked = checkRunAttachments({
      attachments: ['https://a.example/now.csv'],
      messages: [
        { role: 'user', content: 'see https://a.example/mentioned.pdf', attachments: [{ file_url: 'https://a.example/earlier.md' }] },
      ],
    });
    const stored = [
      turn('user', 'old', [
        { url: 'https://a.example/stored.docx', kind: 'document', name: 'stored.docx' },
        { url: 'https://a.example/p.png', kind: 'image', name: 'p.png' },
      ]),
    ];
    expect(readableDocuments(checked, stored).map((document) => document.url)).toEqual([
      'https://a.example/stored.docx',
      'https://a.example/earlier.md',
      'https://a.example/now.csv',
    ]);
  });
});

describe('checkRunAttachments', () => {
  it.each([
    [{ attachments: ['http://a.example/x.pdf'] }, 'attachments[0]'],
    [{ attachments: ['https://a.example/x.exe'] }, 'attachments[0]'],
    [
      {
        attachments: ['https://a.example/1.pdf', 'https://a.example/2.pdf', 'https://a.example/3.pdf'],
        image_urls: ['https://a.example/1.png', 'https://a.example/2.png', 'https://a.example/3.png'],
      },
      'attachments',
    ],
    [{ messages: [{ role: 'user' as const, content: 'x', image_urls: ['ftp://a.example/x.png'] }] }, 'messages[0].image_urls[0]'],
  ])('refuses %j naming %s, as a 422 validation_error', (input, field) => {
    expect(() => checkRunAttachments(input)).toThrow(
      expect.objectContaining({ code: 'validation_error', status: 422, details: [expect.objectContaining({ field })] }),
    );
  });
});
