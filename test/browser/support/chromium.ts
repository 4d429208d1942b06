import { REPO_ROOT } from '@waggle/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium package (scripts/install-browser.sh installs it); CHROMIUM_PATH names another. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The Chromium major playwright-core 's protocol client was built against (its browsers.json). */
export function bundledChromiumMajor(): number {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/playwright-core/browsers.json'), 'utf8')) as {
    browsers: Array<{ name: string; browserVersion: string }>;
  };
  const bundled = manifest.browsers.find((browser) => browser.name === 'chromium');
  if (!bundled) throw new TypeError('playwright-core names no chromium in browsers.json');
  return Number(bundled.browserVersion.split('.')[0]);
}

/**
 * The machine's Chromium, headless, through playwright-core (whose own browser downloads these
 * machines cannot reach). The caller asserts its version against bundledChromiumMajor.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

const AXE_SOURCE = readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * axe-core's WCAG 2.1 A and AA rules on the page as it is. axe is evaluated through the
 * DevTools protocol, not as a <script> element, so the console's CSP stays on during the scan.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact: impact ?? null,
      help,
      nodes: nodes.map(({ target }) => ({ target })),
    }));
  });
}

/** The violations a screen may not have: serious and critical ones. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
