/** The variant screen's URL search: the two versions whose diff is shown. */
export interface VariantSearch {
  from?: number;
  to?: number;
}

function versionNumber(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(number) && number >= 1 ? number : undefined;
}

/** Reads the search leniently: anything that is not a version number is dropped. */
export function parseVariantSearch(search: Record<string, unknown>): VariantSearch {
  const parsed: VariantSearch = {};
  const from = versionNumber(search.from);
  const to = versionNumber(search.to);
  if (from !== undefined) parsed.from = from;
  if (to !== undefined) parsed.to = to;
  return parsed;
}
