import type { AppliedDeployment } from '@waggle/contracts';
import { cliJson, expectEventually, fakeModel, loadCatalogWithFakeModels } from '@waggle/testing';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { bundledChromiumMajor, seriousViolations } from './support/chromium';
import { DESKTOP, PHONE, screenshot, startConsoleStack, type ConsoleStack } from './support/console-stack';

const PROMPTS = `
prompts:
  - deployment: console-answers
    variants:
      - name: default
        model: fake-console-chat
        messages:
          - { role: user, content: "{{ question }}" }
  - deployment: console-other
    variants:
      - name: default
        model: fake-console-chat
        messages:
          - { role: user, content: "{{ question }}" }
`;

/**
 * The web console in a real headless Chromium (Debian's, driven by playwright-core) against the
 * gateway and the services it needs: log in with a key, filter the runs and export them, with an
 * axe-core scan of each screen. The screenshots in docs/guide/console.md are made by the browser specs.
 */
describe('the web console: log in, runs, export', () => {
  let stack: ConsoleStack;
  let gateway: string;
  let key: string;
  let answers: AppliedDeployment;
  let page: Page;
  /** What the browser reported as errors (a CSP refusal, an uncaught exception): none are expected. */
  let pageErrors: string[];
  const answersRuns: string[] = [];
  const otherRuns: string[] = [];

  async function invoke(deployment: string, question: string, user: string): Promise<string> {
    const response = await stack.api('POST', '/v1/prompt/invoke', {
      deployment,
      variant: 'default',
      inputs: { question },
      user,
      metadata: { source: 'browser-test' },
    });
    expect(response.status).toBe(200);
    return (response.body as { request_id: string }).request_id;
  }

  beforeAll(async () => {
    stack = await startConsoleStack({ apps: ['catalog', 'invocation'], workspaceName: 'browser console' });
    ({ gateway, key, page, pageErrors } = stack);
    await loadCatalogWithFakeModels('2099.8.1', [fakeModel('fake-console-chat', { reasoning: false })]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-console-')), 'prompts.yaml');
    writeFileSync(file, PROMPTS);
    [answers] = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', stack.workspaceId]);
    for (const question of ['first', 'second', 'third']) answersRuns.push(await invoke('console-answers', question, 'ada@example.com'));
    otherRuns.push(await invoke('console-other', 'elsewhere', 'grace@example.com'));
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("drives Debian's Chromium, whose major is playwright-core's own or one above", () => {
    const major = Number(stack.browser.version().split('.')[0]);
    expect({ major, bundled: bundledChromiumMajor() }).toEqual({ major: expect.any(Number), bundled: expect.any(Number) });
    expect(major - bundledChromiumMajor()).toBeGreaterThanOrEqual(0);
    expect(major - bundledChromiumMajor()).toBeLessThanOrEqual(1);
  });

  it("refuses a wrong key with the catalog's message and the trace id, then logs in with the key typed at the keyboard", async () => {
    await page.goto(`${gateway}/console/runs`);
    // Not logged in: the console asks for a key first, and keeps the screen asked for to come back to it.
    await page.waitForURL((url) => url.pathname === '/console/login' && url.searchParams.get('redirect') === '/runs');
    const keyInput = page.getByLabel('Workspace API key');
    await keyInput.focus();
    await page.keyboard.type('wsk_not-a-real-key');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Error 401 \(invalid_api_key\)/);
    expect(await page.getByTestId('error-trace-id').textContent()).toMatch(/^[0-9a-f]{32}$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('login-error') });

    await keyInput.fill('');
    await keyInput.focus();
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gateway}/console/runs`);
    await page.getByTestId('run-row').first().waitFor();
    // The key is in this tab's session storage, and nowhere in the URL.
    expect(await page.evaluate("sessionStorage.getItem('waggle.console.api-key')")).toBe(key);
    expect(page.url()).not.toContain(key);
  });

  it('lists the runs newest first, filters them by artifact and status through the URL, and passes the axe scan', async () => {
    const rowIds = async () =>
      page.getByTestId('run-row').evaluateAll((rows) => rows.map((row) => row.lastElementChild?.textContent ?? ''));
    expect(await rowIds()).toEqual([...answersRuns, ...otherRuns].reverse());
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('runs'), fullPage: true });

    await page.getByLabel('Artifact id').fill(answers.prompt_endpoint_id);
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('artifact') === answers.prompt_endpoint_id);
    expect(new URL(page.url()).searchParams.get('status')).toBe('completed');
    await expectRows(page, [...answersRuns].reverse());
    await page.screenshot({ path: screenshot('runs-filtered'), fullPage: true });

    // The filtered view is a link: opened afresh, it shows the same runs.
    await page.reload();
    await expectRows(page, [...answersRuns].reverse());
    expect(await page.getByLabel('Status').inputValue()).toBe('completed');
  });

  it('exports the filtered runs as CSV and as JSONL, read from the API page by page', async () => {
    const csv = await download(page, 'Export CSV');
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    expect(header.split(',').slice(0, 3)).toEqual(['request_id', 'status', 'request_type']);
    expect(lines.map((line) => line.split(',')[0])).toEqual([...answersRuns].reverse());
    expect(lines.every((line) => line.includes(',completed,prompt,prompt_deployment,'))).toBe(true);

    const jsonl = await download(page, 'Export JSONL');
    const rows = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { request_id: string; status: string; requestable_id: string; user: string; metadata: object });
    expect(rows.map((row) => row.request_id)).toEqual([...answersRuns].reverse());
    expect(rows[0]).toEqual(
      expect.objectContaining({
        status: 'completed',
        requestable_id: answers.prompt_endpoint_id,
        user: 'ada@example.com',
        metadata: { source: 'browser-test' },
      }),
    );
    expect(await page.getByRole('status').textContent()).toBe('Exported 3 run(s) as JSONL.');
  });

  it('works at phone width: the navigation folds behind a labelled button, and the screen passes the axe scan', async () => {
    await page.setViewportSize(PHONE);
    const toggle = page.getByRole('button', { name: 'Toggle navigation' });
    expect(await toggle.isVisible()).toBe(true);
    // Folded: the navigation is moved out of the viewport, to the left.
    const navigation = page.getByRole('navigation', { name: 'Screens' });
    const edges = () => navigation.evaluate((element) => element.getBoundingClientRect());
    await expectEventually(async () => expect((await edges()).right).toBeLessThanOrEqual(0));
    await toggle.click();
    await expectEventually(async () => expect((await edges()).left).toBeGreaterThanOrEqual(0));
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('runs-phone') });
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.setViewportSize(DESKTOP);
  });

  it('logs out: the key leaves session storage and the console asks for one again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((url) => url.pathname === '/console/login');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(pageErrors.filter((message) => !/status of 401/.test(message))).toEqual([]);
  });
});

/** Waits for the table to show these runs, in this order (the last cell of a row is its request id). */
async function expectRows(page: Page, expected: string[]): Promise<void> {
  await expectEventually(async () =>
    expect(await page.getByTestId('run-row').evaluateAll((rows) => rows.map((row) => row.lastElementChild?.textContent ?? ''))).toEqual(
      expected,
    ),
  );
}

/** Clicks an export button and answers the downloaded file's text. */
async function download(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  const path = await file.path();
  return readFileSync(path, 'utf8');
}
