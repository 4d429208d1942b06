import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../../..');
const decisions = readFileSync(join(root, 'docs/decisions.md'), 'utf8');
const headings = [...decisions.matchAll(/^#{2,3} (.+)$/gm)].map(([, heading]) => heading.toLowerCase());

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('docs/decisions.md', () => {
  it('has an entry for every decision a code comment cites by name', () => {
    const citations = ['apps', 'libs', 'tools', 'test'].flatMap((dir) =>
      sources(join(root, dir)).flatMap((path) =>
        [...readFileSync(path, 'utf8').matchAll(/decisions(?:\.md)?,? (?:row )?\(?"([^"]{3,80})"/g)].map(([, topic]) => ({
          at: relative(root, path),
          topic,
        })),
      ),
    );
    expect(citations.length).toBeGreaterThan(0);
    expect(citations.filter(({ topic }) => !headings.some((heading) => heading.includes(topic.toLowerCase())))).toEqual([]);
  });

  it('gives every entry an id, the decision and why', () => {
    const entries = decisions.split(/^### /m).slice(1);
    expect(entries.length).toBeGreaterThan(40);
    entries.forEach((entry, index) => {
      expect(entry).toMatch(new RegExp(`^D${index + 1} `));
      expect(entry).toContain('**Decision.**');
      expect(entry).toContain('**Why.**');
    });
  });
});
