import { mapResults, MAX_WEB_SEARCH_RESULTS, resultCount } from './search-results';

describe('mapResults', () => {
  const brave = (entry: Record<string, unknown>) => ({ title: entry.title, url: entry.url, snippet: entry.description });

  it('maps the provider fields and strips HTML from titles and snippets', () => {
    const entries = [
      {
        title: 'Herons <strong>of</strong> Europe',
        url: 'https://birds.example/herons',
        description: 'All about <strong>herons</strong> &amp; egrets.',
      },
    ];
    expect(mapResults(entries, 5, brave)).toEqual([
      { title: 'Herons of Europe', url: 'https://birds.example/herons', snippet: 'All about herons & egrets.' },
    ]);
  });

  it('cuts the list to the limit, in the provider order', () => {
    const entries = Array.from({ length: 8 }, (_, i) => ({ title: `t${i}`, url: `https://example.com/${i}`, description: '' }));
    expect(mapResults(entries, 3, brave).map((result) => result.url)).toEqual([
      'https://example.com/0',
      'https://example.com/1',
      'https://example.com/2',
    ]);
  });

  it('skips entries without an http(s) URL and fills missing text with empty strings', () => {
    const entries = [
      null,
      'not an object',
      { title: 'no url' },
      { title: 'script', url: 'javascript:alert(1)' },
      { title: 'relative', url: '/path' },
      { url: 'http://plain.example/' },
    ];
    expect(mapResults(entries, 10, brave)).toEqual([{ title: '', url: 'http://plain.example/', snippet: '' }]);
  });

  it('answers no results for an answer that has no list', () => {
    expect(mapResults(undefined, 5, brave)).toEqual([]);
    expect(mapResults({ results: [] }, 5, brave)).toEqual([]);
  });
});

describe('resultCount', () => {
  it('keeps a count between 1 and 20', () => {
    expect(resultCount(5)).toBe(5);
    expect(resultCount(0)).toBe(1);
    expect(resultCount(-3)).toBe(1);
    expect(resultCount(50)).toBe(MAX_WEB_SEARCH_RESULTS);
    expect(resultCount(4.7)).toBe(4);
    expect(resultCount(Number.NaN)).toBe(MAX_WEB_SEARCH_RESULTS);
  });
});
