import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentationFiles, findLinkProblems, headingAnchors, linkTargets } from './doc-links';

describe('the documentation links', () => {
  const root = join(__dirname, '../../..');

  it('stay inside the repository and name files and headings that exist', () => {
    expect(findLinkProblems(root, documentationFiles(root))).toEqual([]);
  });

  it('cover README.md and the docs tree', () => {
    const files = documentationFiles(root).map((file) => file.slice(root.length + 1));
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/decisions.md', 'docs/reference/configuration.md']),
    );
  });
});

describe('the link check', () => {
  const root = mkdtempSync(join(tmpdir(), 'waggle-doc-links-'));
  mkdirSync(join(root, 'docs/guide'), { recursive: true });
  writeFileSync(join(root, 'docs/guide/page.md'), '# A page\n\n## The `read_file` tool: paging\n');
  const check = (markdown: string) => {
    writeFileSync(join(root, 'README.md'), markdown);
    return findLinkProblems(root, [join(root, 'README.md')]).map(({ link, problem }) => `${link}: ${problem}`);
  };

  it('refuses links out of the repository', () => {
    expect(
      check('See [the site](https://example.com/docs), <http://example.org> or https://example.info.\n\n[ref]: https://example.net\n'),
    ).toEqual([
      'https://example.com/docs: points outside the repository',
      'http://example.org: points outside the repository',
      'https://example.net: points outside the repository',
      'https://example.info: points outside the repository',
    ]);
    expect(check('[up](../elsewhere.md)')).toEqual(['../elsewhere.md: points outside the repository']);
  });

  it('refuses relative links to missing files and headings', () => {
    expect(check('[gone](docs/guide/gone.md) [bad](docs/guide/page.md#no-such-heading) [self](#nowhere)')).toEqual([
      'docs/guide/gone.md: names a file that does not exist',
      'docs/guide/page.md#no-such-heading: names a heading docs/guide/page.md does not have',
      '#nowhere: names a heading README.md does not have',
    ]);
  });

  it('accepts local links, local examples and links shown as code', () => {
    const markdown = [
      '# Top',
      '[page](docs/guide/page.md#the-read_file-tool-paging) [top](#top) <http://127.0.0.1:3000/health> [gw](http://localhost:3000)',
      '`[not a link](https://example.com)`',
      '```md\n[not a link](https://example.com)\n```',
    ].join('\n');
    expect(check(markdown)).toEqual([]);
  });

  it('finds inline, auto and reference links', () => {
    expect(linkTargets('[a](x.md) ![i](y.png "title") <https://z.example> http://127.0.0.1:3000/v1\n[r]: w.md')).toEqual([
      'x.md',
      'y.png',
      'https://z.example',
      'w.md',
      'http://127.0.0.1:3000/v1',
    ]);
    expect([...headingAnchors('# Dead letters: bounded retries\n## A private bus\n## A private bus')]).toEqual([
      'dead-letters-bounded-retries',
      'a-private-bus',
      'a-private-bus-1',
    ]);
  });
});
