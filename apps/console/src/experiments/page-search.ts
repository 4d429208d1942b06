/** A screen's URL search with a page number (from 0) and, for a dataset, the version shown. */
export interface PageSearch {
  page?: number;
  version?: number;
}

function wholeNumber(value: unknown, min: number): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(number) && number >= min ? number : undefined;
}

/** Reads the search leniently: a page from 0 and a version from 1; anything else is dropped. */
export function parsePageSearch(search: Record<string, unknown>): PageSearch {
  const parsed: PageSearch = {};
  const page = wholeNumber(search.page, 0);
  const version = wholeNumber(search.version, 1);
  if (page !== undefined && page > 0) parsed.page = page;
  if (version !== undefined) parsed.version = version;
  return parsed;
}
