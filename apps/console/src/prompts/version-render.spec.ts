import { diffRenderings, renderVersion } from './version-render';

describe('renderVersion', () => {
  const version = {
    version_id: 'v-1',
    version: 1,
    model: 'gpt-x',
    messages: [{ role: 'user', content: '{{ question }}' }],
    params: { temperature: 0.2, max_tokens: 10 },
    variables: ['question'],
    created_at: '2026-01-01T00:00:00Z',
    current: true,
    labels: ['latest'],
  };

  it('renders the definition as YAML with sorted keys, without the number, dates and pointers', () => {
    expect(renderVersion(version)).toBe(
      [
        'messages:',
        '  - content: "{{ question }}"',
        '    role: user',
        'model: gpt-x',
        'params:',
        '  max_tokens: 10',
        '  temperature: 0.2',
        'variables:',
        '  - question',
        '',
      ].join('\n'),
    );
  });

  it('renders equal definitions the same whatever their key order and pointers', () => {
    const reordered = {
      labels: [],
      current: false,
      version: 7,
      params: { max_tokens: 10, temperature: 0.2 },
      variables: ['question'],
      messages: version.messages,
      model: 'gpt-x',
    };
    expect(renderVersion(reordered)).toBe(renderVersion(version));
  });
});

describe('diffRenderings', () => {
  it('gives one entry per line, marked added, removed or the same', () => {
    expect(diffRenderings('a: 1\nb: 2\n', 'a: 1\nb: 3\nc: 4\n')).toEqual([
      { kind: 'same', text: 'a: 1' },
      { kind: 'removed', text: 'b: 2' },
      { kind: 'added', text: 'b: 3' },
      { kind: 'added', text: 'c: 4' },
    ]);
  });

  it('gives only unchanged lines for equal texts', () => {
    expect(diffRenderings('a: 1\n', 'a: 1\n')).toEqual([{ kind: 'same', text: 'a: 1' }]);
  });
});
