import {
  formatBytes,
  itemsRefetchInterval,
  knowledgeBaseBody,
  pagedPath,
  pendingItems,
  scoreCells,
  searchBody,
  type KnowledgeBaseItemRow,
  type SearchChunk,
} from './knowledge-logic';

const item = (run_status: KnowledgeBaseItemRow['run_status']): KnowledgeBaseItemRow => ({
  id: run_status,
  name: `${run_status}.txt`,
  item_type: 'asset',
  run_status,
  status: 'active',
  error: null,
  chunks_count: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

describe('the items refresh', () => {
  it('refreshes while an item is queued or running, and stops when none is', () => {
    expect(pendingItems([item('queued'), item('running'), item('completed'), item('failed')])).toBe(2);
    expect(itemsRefetchInterval([item('completed'), item('running')])).toBe(2_000);
    expect(itemsRefetchInterval([item('completed'), item('failed')])).toBe(false);
    expect(itemsRefetchInterval(undefined)).toBe(false);
  });
});

describe('searchBody', () => {
  it('sends all four fields, numbers as numbers and anything else as typed', () => {
    expect(searchBody({ query: 'refunds', searchType: 'hybrid', chunkLimit: '5', threshold: '0.25' })).toEqual({
      search_query: 'refunds',
      search_type: 'hybrid',
      search_chunk_limit: 5,
      search_score_threshold: 0.25,
    });
    expect(searchBody({ query: 'q', searchType: 'vector', chunkLimit: 'many', threshold: '' })).toEqual(
      expect.objectContaining({ search_chunk_limit: 'many', search_score_threshold: '' }),
    );
  });
});

describe('scoreCells', () => {
  const chunk: SearchChunk = {
    id: 'c',
    knowledge_base_item_id: 'i',
    item_name: 'a.txt',
    content: 'text',
    score: 0.9,
    scores: { full_text: 0.41234, vector: null },
    position: 0,
  };
  it('shows lexical, vector and the fused score of a hybrid search, a dash for what was not computed', () => {
    expect(scoreCells(chunk, 'hybrid')).toEqual({ lexical: '0.4123', vector: '—', fused: '0.9000' });
  });
  it('shows no fused score for a one-sided search', () => {
    expect(scoreCells({ ...chunk, score: 0.41234 }, 'full_text')).toEqual({ lexical: '0.4123', vector: '—', fused: '—' });
  });
});

describe('knowledgeBaseBody', () => {
  const values = { name: ' Handbook ', description: '', search_type: 'full_text', search_score_threshold: '0', search_chunk_limit: '3' };
  it('leaves an empty description out of a create and unsets it on an update', () => {
    expect(knowledgeBaseBody(values, false)).toEqual({
      knowledge_base: { name: 'Handbook', search_type: 'full_text', search_score_threshold: 0, search_chunk_limit: 3 },
    });
    expect(knowledgeBaseBody(values, true).knowledge_base.description).toBeNull();
  });
});

describe('formatBytes and pagedPath', () => {
  it('reads byte counts', () => {
    expect([formatBytes(12), formatBytes(2048), formatBytes(3 * 1024 * 1024)]).toEqual(['12 B', '2.0 KiB', '3.0 MiB']);
  });
  it('asks for a page by its size and the cursor of the page before, the first page without one', () => {
    expect(pagedPath('/v1/private/assets', 20, undefined)).toBe('/v1/private/assets?limit=20');
    expect(pagedPath('/v1/private/knowledge_bases/k/items', 20, 'a b&c')).toBe(
      '/v1/private/knowledge_bases/k/items?limit=20&before=a+b%26c',
    );
  });
});
