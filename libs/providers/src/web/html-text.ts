/**
 * Search APIs mark the query's words in their snippets (Brave wraps them in `<strong>`) and
 * escape entities; a workflow step wants plain text. Snippets are a line or two, so a tag
 * stripper and an entity decoder are enough here; whole pages go through turndown instead
 * (the scraper in @waggle/documents).
 */

/** A Map: an entity is named by the page (`&constructor;` must stay as written). */
const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
    nbsp: ' ',
    hellip: '…',
    mdash: '—',
    ndash: '–',
    lsquo: '‘',
    rsquo: '’',
    ldquo: '“',
    rdquo: '”',
    middot: '·',
    copy: '©',
    reg: '®',
    trade: '™',
  }),
);

function codePointText(codePoint: number, original: string): string {
  if (!Number.isInteger(codePoint) || codePoint <= 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff))
    return original;
  return String.fromCodePoint(codePoint);
}

/** `&amp;`, `&#39;`, `&#x27;` and the common named entities as characters; unknown ones stay as written. */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (entity, name: string) => {
    if (name[0] === '#') {
      const hex = name[1] === 'x' || name[1] === 'X';
      return codePointText(Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10), entity);
    }
    return NAMED_ENTITIES.get(name.toLowerCase()) ?? entity;
  });
}

/** A snippet or title as plain text: tags dropped, entities decoded, whitespace runs made one space. */
export function htmlSnippetToText(html: string): string {
  const withoutTags = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<\/?[a-z][^>]*>/gi, '');
  return decodeHtmlEntities(withoutTags).replace(/\s+/g, ' ').trim();
}
