import { renderText, renderValue, templateParseCount, templateRoots } from './workflow-template';

const scope = {
  topic: 'bees',
  count: 3,
  search: {
    output: {
      results: [
        { url: 'https://a.test', title: 'A' },
        { url: 'https://b.test', title: 'B' },
      ],
    },
    error: null,
  },
  empty: { output: null, error: 'timed out' },
  item: { url: 'https://a.test' },
  index: 0,
};

describe('renderValue', () => {
  it('keeps the native value of a field that is exactly one reference', () => {
    expect(renderValue('{{ search.output.results }}', scope)).toEqual(scope.search.output.results);
    expect(renderValue('  {{-search.output.results[1]-}} ', scope)).toEqual({ url: 'https://b.test', title: 'B' });
    expect(renderValue('{{ count }}', scope)).toBe(3);
    expect(renderValue('{{ index }}', scope)).toBe(0);
    expect(renderValue('{{ search.output.results.size }}', scope)).toBe(2);
    expect(renderValue('{{ search.output.results.last.title }}', scope)).toBe('B');
  });

  it('renders a missing exact reference as null, and a missing variable inside text as empty', () => {
    expect(renderValue('{{ empty.output.results }}', scope)).toBeNull();
    expect(renderValue('{{ search.output.results[9] }}', scope)).toBeNull();
    expect(renderValue('[{{ empty.output.results }}] [{{ nothing.at.all }}]', scope)).toBe('[] []');
    expect(renderText('{{ empty.output }}', scope)).toBe('');
  });

  it('renders text with filters, loops, and objects printed as JSON', () => {
    expect(renderValue('About {{ topic | upcase }}', scope)).toBe('About BEES');
    expect(renderValue('{{ count }}', { count: 3 })).toBe(3);
    expect(renderValue('{{ count | plus: 1 }}', scope)).toBe('4');
    expect(renderValue('{% for r in search.output.results %}{{ r.title }};{% endfor %}', scope)).toBe('A;B;');
    expect(renderValue('Pages: {{ search.output.results }}', scope)).toBe(`Pages: ${JSON.stringify(scope.search.output.results)}`);
    expect(renderText('{{ search.output.results[0] }}', scope)).toBe('{"url":"https://a.test","title":"A"}');
    expect(renderText('{{ count }}', scope)).toBe('3');
  });

  it('renders objects and arrays recursively and leaves other values alone', () => {
    expect(
      renderValue(
        { q: '{{ topic }}', list: ['{{ search.output.results[0].url }}', 7, true, null], nested: { all: '{{ search.output.results }}' } },
        scope,
      ),
    ).toEqual({
      q: 'bees',
      list: ['https://a.test', 7, true, null],
      nested: { all: scope.search.output.results },
    });
    expect(renderValue('no templates here', scope)).toBe('no templates here');
    expect(renderValue(42, scope)).toBe(42);
  });

  it('does not read inherited properties through an exact reference', () => {
    expect(renderValue('{{ topic.constructor }}', scope)).toBeNull();
    expect(renderValue('{{ search.toString }}', scope)).toBeNull();
  });

  it('parses each template string once', () => {
    const source = `Cached {{ topic }} ${Math.random()}`;
    const before = templateParseCount();
    expect(renderValue(source, scope)).toMatch(/^Cached bees /);
    expect(renderValue(source, { topic: 'wasps' })).toMatch(/^Cached wasps /);
    expect(templateRoots(source)).toEqual(['topic']);
    expect(templateParseCount()).toBe(before + 1);
  });
});

describe('templateRoots', () => {
  it('names the root of every variable read, not loop variables or assigned names', () => {
    expect(
      templateRoots(
        '{{ search.output.results[0].url }} {% for p in pages.output %}{{ p }}{{ item.url }}{% endfor %} {% assign z = topic %}{{ z }}',
      ).sort(),
    ).toEqual(['item', 'pages', 'search', 'topic'].sort());
    expect(templateRoots('{{ item }}')).toEqual(['item']);
    expect(templateRoots('plain')).toEqual([]);
  });

  it('throws on an unknown filter and an unclosed tag', () => {
    expect(() => templateRoots('{{ topic | shout }}')).toThrow(/undefined filter: shout/);
    expect(() => templateRoots('{% if topic %}')).toThrow();
  });
});
