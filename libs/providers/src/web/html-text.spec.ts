import { decodeHtmlEntities, htmlSnippetToText } from './html-text';

describe('htmlSnippetToText', () => {
  it("drops Brave's highlighting tags and decodes entities", () => {
    expect(htmlSnippetToText('The <strong>grey heron</strong> &amp; the <strong>egret</strong> &#8212; wading birds&#x21;')).toBe(
      'The grey heron & the egret — wading birds!',
    );
  });

  it('makes whitespace runs and line breaks one space, and drops comments', () => {
    expect(htmlSnippetToText('  one<br/>\n two <!-- hidden -->\tthree  ')).toBe('one two three');
  });

  it('keeps text that only looks like a tag, and escaped markup as text', () => {
    expect(htmlSnippetToText('a < b and 3 > 2')).toBe('a < b and 3 > 2');
    expect(htmlSnippetToText('&lt;script&gt;alert(1)&lt;/script&gt;')).toBe('<script>alert(1)</script>');
  });
});

describe('decodeHtmlEntities', () => {
  it('leaves unknown and invalid entities as written', () => {
    expect(decodeHtmlEntities('&bogus; &#0; &#xD800; &#1114112; &quot;ok&quot;')).toBe('&bogus; &#0; &#xD800; &#1114112; "ok"');
  });

  it('leaves entities named like Object.prototype properties as written', () => {
    expect(decodeHtmlEntities('&constructor; &toString; &__proto__; &hasOwnProperty; &amp;')).toBe(
      '&constructor; &toString; &__proto__; &hasOwnProperty; &',
    );
  });
});
