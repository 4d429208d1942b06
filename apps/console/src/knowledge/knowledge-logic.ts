export const SEARCH_TYPES = ['hybrid', 'full_text', 'vector'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
export const ITEM_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ItemRunStatus = (typeof ITEM_RUN_STATUSES)[number];

/** The knowledge base record of `/v1/public/workspaces/{id}/knowledge_bases`. */
export interface KnowledgeBaseRow {
  id: string;
  name: string;
  description: string | null;
  search_type: SearchType;
  search_score_threshold: number;
  search_chunk_limit: number;
  items_count: number;
  items_by_status: Record<ItemRunStatus, number>;
  embedding_model: string;
  embedding_dimensions: number | null;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeBaseItemRow {
  id: string;
  name: string;
  item_type: 'asset' | 'url';
  run_status: ItemRunStatus;
  status: string;
  error: string | null;
  chunks_count: number;
  created_at: string;
  updated_at: string;
}

export interface SearchChunk {
  id: string;
  knowledge_base_item_id: string;
  item_name: string;
  content: string;
  score: number;
  scores: { full_text: number | null; vector: number | null };
  position: number;
}

export interface AssetRow {
  id: string;
  name: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  created_at: string;
}

/** Items still being ingested: while there are any, the items list is read again. */
export function pendingItems(items: readonly KnowledgeBaseItemRow[]): number {
  return items.filter((item) => item.run_status === 'queued' || item.run_status === 'running').length;
}

/** react-query's refetchInterval for the items: every 2 s while some are pending, else not at all. */
export function itemsRefetchInterval(items: readonly KnowledgeBaseItemRow[] | undefined): number | false {
  return items !== undefined && pendingItems(items) > 0 ? 2_000 : false;
}

/** Badge shades dark enough for WCAG AA contrast of their text on white. */
export const ITEM_STATUS_COLORS: Record<ItemRunStatus, string> = {
  queued: 'gray.8',
  running: 'blue.9',
  completed: 'teal.9',
  failed: 'red.9',
};

export interface SearchForm {
  query: string;
  searchType: SearchType;
  chunkLimit: string;
  threshold: string;
}

/**
 * The body of `POST …/knowledge_bases/{id}/search` (all four fields required). Numbers that do
 * not read as one are sent as typed, so the API's 422 names the field.
 */
export function searchBody(form: SearchForm): Record<string, unknown> {
  const number = (typed: string) => (typed.trim() !== '' && Number.isFinite(Number(typed)) ? Number(typed) : typed);
  return {
    search_query: form.query,
    search_type: form.searchType,
    search_chunk_limit: number(form.chunkLimit),
    search_score_threshold: number(form.threshold),
  };
}

/**
 * A chunk's three scores as shown: lexical (BM25, normalised) and vector (cosine) from
 * `scores`, null when that side was not searched; fused is `score` of a hybrid search (weighted
 * reciprocal-rank fusion, normalised). A full_text or vector search fuses nothing: its `score`
 * is that side's, already in its column.
 */
export function scoreCells(chunk: SearchChunk, searchType: SearchType): { lexical: string; vector: string; fused: string } {
  const shown = (value: number | null) => (value === null ? '—' : value.toFixed(4));
  return {
    lexical: shown(chunk.scores.full_text),
    vector: shown(chunk.scores.vector),
    fused: shown(searchType === 'hybrid' ? chunk.score : null),
  };
}

/** A byte count as people read it (KiB, MiB). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A page of a private cursor list (newest first): `limit` rows after `before`, the last id of the page before. */
export function pagedPath(path: string, limit: number, before: string | undefined): string {
  const query = new URLSearchParams({ limit: String(limit) });
  if (before !== undefined) query.set('before', before);
  return `${path}?${query.toString()}`;
}

export interface KnowledgeBaseFormValues {
  name: string;
  description: string;
  search_type: string;
  search_score_threshold: string;
  search_chunk_limit: string;
}

/** The API's defaults for a new knowledge base (hybrid, 0.3, 5). */
export const EMPTY_KNOWLEDGE_BASE_FORM: KnowledgeBaseFormValues = {
  name: '',
  description: '',
  search_type: 'hybrid',
  search_score_threshold: '0.3',
  search_chunk_limit: '5',
};

export function formOfKnowledgeBase(knowledgeBase: KnowledgeBaseRow): KnowledgeBaseFormValues {
  return {
    name: knowledgeBase.name,
    description: knowledgeBase.description ?? '',
    search_type: knowledgeBase.search_type,
    search_score_threshold: String(knowledgeBase.search_score_threshold),
    search_chunk_limit: String(knowledgeBase.search_chunk_limit),
  };
}

/**
 * The `{knowledge_base: {...}}` body of a create or an update. An emptied description is null
 * on update (unset) and left out on create; numbers that do not read as one are sent as typed,
 * so the API's 422 names the field.
 */
export function knowledgeBaseBody(values: KnowledgeBaseFormValues, update: boolean): { knowledge_base: Record<string, unknown> } {
  const number = (typed: string) => (typed.trim() !== '' && Number.isFinite(Number(typed)) ? Number(typed) : typed);
  const description = values.description.trim() === '' ? (update ? null : undefined) : values.description;
  return {
    knowledge_base: {
      name: values.name.trim(),
      ...(description !== undefined && { description }),
      search_type: values.search_type,
      search_score_threshold: number(values.search_score_threshold),
      search_chunk_limit: number(values.search_chunk_limit),
    },
  };
}
