import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface DocLinkProblem {
  file: string;
  link: string;
  problem: string;
}

/** The documentation a newcomer reads: README.md and every Markdown file under docs/. */
export function documentationFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))];
}

/** Markdown without fenced code blocks and inline code spans: text a reader sees as prose. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const LOCAL_HOSTS = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])([:/]|$)/i;

/** Every link target of a Markdown text: inline links and images, autolinks, reference definitions. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inlineLink = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  const autoLink = /<((?:https?|ftp):\/\/[^>\s]+)>/g;
  const referenceDefinition = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm;
  const inline = [...text.matchAll(inlineLink)].map(([, target]) => target);
  const auto = [...text.matchAll(autoLink)].map(([, target]) => target);
  const references = [...text.matchAll(referenceDefinition)].map(([, target]) => target);
  // A URL written out in prose is a link too (GitHub links it).
  const rest = text.replace(inlineLink, ' ').replace(autoLink, ' ').replace(referenceDefinition, ' ');
  const bare = [...rest.matchAll(/\bhttps?:\/\/[^\s)>\]|]+/g)].map(([url]) => url.replace(/[.,;:!?]+$/, ''));
  return [...inline, ...auto, ...references, ...bare];
}

/**
 * What is wrong with the links of the given files: a link out of the repository (any URL but
 * a local example), a relative link to a file that does not exist, or to a heading that does not.
 */
export function findLinkProblems(root: string, files: string[]): DocLinkProblem[] {
  const problems: DocLinkProblem[] = [];
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    if (!anchorsOf.has(path)) anchorsOf.set(path, headingAnchors(readFileSync(path, 'utf8')));
    return anchorsOf.get(path) as Set<string>;
  };
  for (const file of files) {
    const name = relative(root, file);
    for (const link of linkTargets(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) {
        if (!LOCAL_HOSTS.test(link)) problems.push({ file: name, link, problem: 'points outside the repository' });
        continue;
      }
      const [path, fragment] = link.split('#', 2) as [string, string | undefined];
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!target.startsWith(resolve(root) + '/') && target !== resolve(root)) {
        problems.push({ file: name, link, problem: 'points outside the repository' });
      } else if (!existsSync(target)) {
        problems.push({ file: name, link, problem: 'names a file that does not exist' });
      } else if (fragment && target.endsWith('.md') && !anchors(target).has(fragment)) {
        problems.push({ file: name, link, problem: `names a heading ${relative(root, target)} does not have` });
      }
    }
  }
  return problems;
}
