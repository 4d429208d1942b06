import { nameOfUrl } from './knowledge-bases.service';

describe('nameOfUrl (an item added from a URL without a name)', () => {
  it("names the item after the URL's last path segment, decoded, else its host", () => {
    expect(nameOfUrl(new URL('https://docs.example.com/guides/Getting%20started.md'))).toBe('Getting started.md');
    expect(nameOfUrl(new URL('https://docs.example.com/'))).toBe('docs.example.com');
  });

  it('keeps a malformed escape as the caller wrote it instead of throwing (it answered 500)', () => {
    expect(nameOfUrl(new URL('https://docs.example.com/a/%E0%A4%A'))).toBe('%E0%A4%A');
    expect(nameOfUrl(new URL('https://docs.example.com/%'))).toBe('%');
  });
});
