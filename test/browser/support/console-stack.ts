import type { AppName } from '@waggle/contracts';
import { cliJson, FakeProviderServer, freePort, REPO_ROOT, spawnApp, waitUntilLive, type AppProcess } from '@waggle/testing';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium';

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * Where the screenshots go: tmp/ by default, so a test run leaves the tree as it was;
 * `CONSOLE_SCREENSHOTS=docs` writes them over docs/guide/images (docs/guide/console.md shows them).
 */
const SCREENSHOTS = join(REPO_ROOT, process.env.CONSOLE_SCREENSHOTS === 'docs' ? 'docs/guide/images' : 'tmp/console-screenshots');

/** The path of a screenshot named `console-<name>.png`. */
export function screenshot(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, `console-${name}.png`);
}

export interface ConsoleStack {
  /** The gateway's base URL (the console is under `${gateway}/console`). */
  gateway: string;
  /** The stack's fake model provider (its base URL is FAKE_BASE_URL/v1 in every app's environment). */
  fake: FakeProviderServer;
  apps: AppProcess[];
  /** A workspace created for this spec and its key. */
  workspaceId: string;
  key: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** What the browser reported as errors (a CSP refusal, an uncaught exception, a failed fetch). */
  pageErrors: string[];
  /** An authenticated call to the gateway, as a client (or the test's own setup) makes it; the body is read loosely by the specs. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test's view of any JSON answer
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/**
 * The running stack a browser spec drives: the fake model provider, the apps it names (the
 * gateway last, started for it), a workspace with a key, and a headless Chromium page at desktop
 * size. `env` is added to every app's environment.
 */
export async function startConsoleStack(options: {
  apps: AppName[];
  env?: Record<string, string>;
  workspaceName: string;
  fake?: FakeProviderServer;
}): Promise<ConsoleStack> {
  const fake = options.fake ?? new FakeProviderServer();
  const browser = await launchChromium();
  const fakeUrl = await fake.start();
  const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', ...options.env };
  const apps: AppProcess[] = [];
  for (const app of [...options.apps.filter((name) => name !== 'gateway'), 'gateway'] as AppName[])
    apps.push(spawnApp(app, await freePort(), env));
  await Promise.all(apps.map((app) => waitUntilLive(app)));
  const gateway = apps[apps.length - 1].baseUrl;
  const created = await cliJson<{ workspace_id: string; api_key: string }>(['workspace', 'create', '--name', options.workspaceName]);
  const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${created.api_key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // an answer that is not JSON (an event stream) stays text
    }
    return { status: response.status, body: parsed };
  };
  return {
    gateway,
    fake,
    apps,
    workspaceId: created.workspace_id,
    key: created.api_key,
    browser,
    context,
    page,
    pageErrors,
    api,
    async stop() {
      await context.close();
      await browser.close();
      await Promise.all(apps.map((app) => app.stop()));
      await fake.stop();
    },
  };
}

/**
 * Logs the page in the way a user does (the key typed into the login form) and waits for the
 * screen it lands on; then opens `path` (under /console) when given.
 */
export async function logIn(stack: ConsoleStack, path?: string): Promise<void> {
  const { page, gateway, key } = stack;
  await page.goto(`${gateway}/console/login`);
  await page.getByLabel('Workspace API key').fill(key);
  await page.keyboard.press('Enter');
  await page.getByTestId('workspace-name').waitFor();
  if (path !== undefined) await page.goto(`${gateway}/console${path}`);
}
