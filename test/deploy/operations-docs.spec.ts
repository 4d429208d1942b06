/**
 * docs/operations/: no sentence still says that metrics are on their way. Every app serves
 * /metrics and the gateway's METRICS_PORT is declared (apps/gateway/src/config/gateway.env.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const operationsDir = path.resolve(__dirname, '../../docs/operations');
const STALE =
  /\b(is|are) being added\b|\bpending\b|\bnot yet (served|exported)\b|until `?\/metrics`? is in your version|withPendingDeclarations/i;

describe('docs/operations', () => {
  const pages = fs.readdirSync(operationsDir).filter((file) => file.endsWith('.md'));

  it('has pages to read', () => {
    expect(pages).toEqual(
      expect.arrayContaining(['metrics.md', 'scaling.md', 'deploying.md', 'alerts.md', 'releasing.md', 'kubernetes-quickstart.md']),
    );
  });

  it('says nowhere that metrics, /metrics or METRICS_PORT are still to come', () => {
    const stale = pages.flatMap((page) => {
      // Paragraphs, so that a sentence broken over lines is read whole.
      const paragraphs = fs.readFileSync(path.join(operationsDir, page), 'utf8').split(/\n\s*\n/);
      return paragraphs
        .map((paragraph) => paragraph.replace(/\s+/g, ' '))
        .filter((paragraph) => /metrics|METRICS_PORT/i.test(paragraph) && STALE.test(paragraph))
        .map((paragraph) => `${page}: ${paragraph.slice(0, 160)}`);
    });
    expect(stale).toEqual([]);
  });

  it('the check catches the sentences it is for', () => {
    expect(STALE.test('`/metrics` (Prometheus text) is being added to every app')).toBe(true);
    expect(STALE.test('today the gateway’s METRICS_PORT, pending in another branch')).toBe(true);
    expect(STALE.test('Every app serves `/metrics` (Prometheus text)')).toBe(false);
  });
});
