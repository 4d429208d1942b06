import type { AppliedDeployment, DeliverySummary, RequestListItem } from '@waggle/contracts';
import { CallbackReceiver, cliJson, expectEventually, FakeProviderServer, fakeModel, loadCatalogWithFakeModels } from '@waggle/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { seriousViolations } from './support/chromium';
import { DESKTOP, PHONE, screenshot, startConsoleStack, type ConsoleStack } from './support/console-stack';

const PROMPTS = `
prompts:
  - deployment: overview-answers
    variants:
      - name: default
        model: fake-overview-chat
        messages:
          - { role: user, content: "{{ question }}" }
      - name: broken
        model: fake-overview-broken
        messages:
          - { role: user, content: "{{ question }}" }
`;

/** What the priced fake model reports: 1000 prompt tokens (400 cached), 300 completion tokens. */
const USAGE = { promptTokens: 1000, cachedTokens: 400, reasoningTokens: 0, completionTokens: 300 };
/** At FAKE_MODEL_PRICING (input 1, cached 0.1, output 4 USD per million): 600 + 40 + 1200 micro-USD. */
const RUN_COST = 600 + 40 + 1_200;
/** Attempts before a delivery is dead-lettered: the first and CALLBACK_RETRY_SCHEDULE's three retries. */
const ATTEMPTS = 4;

/**
 * The Overview and Webhooks screens in a real headless Chromium against the running stack: the
 * charts' numbers (in their tables) matching the runs made, the delivery log with a delivery's
 * attempts, a dead-lettered callback replayed once its receiver answers again, and a deployment's
 * webhook secret rotated (the old secret then refused by the trigger route, the new accepted).
 */
describe('the web console: overview, webhooks and dead letters', () => {
  const receiver = new CallbackReceiver();
  const fake = new FakeProviderServer({});
  let stack: ConsoleStack;
  let gateway: string;
  let page: Page;
  let pageErrors: string[];
  let applied: AppliedDeployment;
  let okRun: string;
  let deadRun: string;
  let receiverUrl: string;
  /** The UTC month (YYYY-MM) the runs were made in. */
  let runsMonth: string;

  /** A prompt run; answers its HTTP status. */
  const invoke = async (variant: string) =>
    (await stack.api('POST', '/v1/prompt/invoke', { deployment: 'overview-answers', variant, inputs: { question: 'q' } })).status;
  const trigger = (secret: string, path: string) => {
    const variant = applied.variants.find((candidate) => candidate.name === 'default');
    return fetch(`${gateway}/v1/prompt/webhooks/${applied.prompt_endpoint_id}/variants/${variant?.variant_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': secret },
      body: JSON.stringify({ inputs: { question: 'q' }, async: { callback_url: `${receiverUrl}${path}` } }),
    });
  };
  const triggered = async (path: string) => {
    const response = await trigger(applied.webhook_secret, path);
    expect(response.status).toBe(202);
    return ((await response.json()) as { request_id: string }).request_id;
  };
  const deliveryOf = async (requestId: string) => {
    const { body } = await stack.api('GET', `/v1/private/deliveries?request_id=${requestId}`);
    return (body as { deliveries: DeliverySummary[] }).deliveries[0];
  };

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    // The dead-letter receiver fails every attempt until the test lets it answer.
    receiver.script(
      '/dead',
      Array.from({ length: 50 }, () => ({ status: 500 })),
    );
    fake.setModel('fake-overview-chat', { response: 'an answer', usage: USAGE });
    fake.setModel('fake-overview-broken', { error: { status: 500, message: 'upstream exploded' } });
    stack = await startConsoleStack({
      apps: ['catalog', 'invocation', 'agent', 'callback-dispatcher'],
      workspaceName: 'browser overview',
      fake,
      env: {
        PROVIDER_MAX_RETRIES: '0',
        CALLBACK_URL_ALLOWLIST: '127.0.0.1',
        CALLBACK_RETRY_SCHEDULE: '300ms,300ms,300ms',
        CALLBACK_RETRY_JITTER: '0',
      },
    });
    ({ gateway, page, pageErrors } = stack);
    await loadCatalogWithFakeModels('2099.8.41', [
      fakeModel('fake-overview-chat', { reasoning: false }),
      fakeModel('fake-overview-broken', { reasoning: false }),
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-console-overview-')), 'prompts.yaml');
    writeFileSync(file, PROMPTS);
    [applied] = await cliJson<AppliedDeployment[]>(['apply', '-f', file, '--workspace', stack.workspaceId]);
    // A monthly budget of 10 cents for the workspace: the Overview shows how much the runs used.
    const budget = await stack.api('POST', '/v1/private/budgets', { scope: 'workspace', period: 'month', limit_micros: 100_000 });
    expect(budget.status).toBeLessThan(300);
    // Three answered runs and a failed one, then two webhook-triggered runs (answered) whose callbacks succeed and dead-letter.
    runsMonth = new Date().toISOString().slice(0, 7);
    for (let i = 0; i < 3; i += 1) expect(await invoke('default')).toBe(200);
    expect(await invoke('broken')).toBeGreaterThanOrEqual(500);
    okRun = await triggered('/ok');
    deadRun = await triggered('/dead');
    // Every run is in the ledger, ended; both deliveries are done with.
    await expectEventually(async () => {
      const { body } = await stack.api('GET', '/v1/private/requests?limit=100');
      const runs = (body as { requests: RequestListItem[] }).requests;
      expect(runs.filter((run) => run.ended_at !== null)).toHaveLength(6);
    });
    await expectEventually(async () => expect((await deliveryOf(okRun))?.status).toBe('succeeded'));
    await expectEventually(async () => expect((await deliveryOf(deadRun))?.status).toBe('dead_lettered'), { timeoutMs: 20_000 });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('logs in and comes back to the screen first asked for, with its query', async () => {
    await page.goto(`${gateway}/console/overview?range=7d`);
    await page.waitForURL((url) => url.pathname === '/console/login' && url.searchParams.get('redirect') === '/overview?range=7d');
    await page.getByLabel('Workspace API key').fill(stack.key);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gateway}/console/overview?range=7d`);
    await page.getByTestId('summary-requests').waitFor();
  });

  it("shows the workspace's runs: totals, error rate, tokens and cost, and the charts' tables agree with them", async () => {
    await page.locator('label', { hasText: 'Last 24 hours' }).click();
    await page.waitForURL((url) => url.searchParams.get('range') === '24h');
    expect(await page.getByTestId('summary-requests').textContent()).toBe('6');
    expect(await page.getByTestId('summary-failed').textContent()).toBe('1 (16.7 %)');
    expect(await page.getByTestId('summary-tokens').textContent()).toBe('6500 (5000 in, 1500 out)');
    expect(await page.getByTestId('summary-cost').textContent()).toBe(`$${((5 * RUN_COST) / 1_000_000).toFixed(6)}`);
    expect(await page.getByTestId('summary-p95').textContent()).toMatch(/^\d+ ms$/);
    expect(await page.getByTestId('summary-queued').textContent()).toBe('0');

    // The text alternative of the requests chart: one row per hour, summing to the runs made.
    const figure = page.getByRole('figure', { name: 'Requests and failures' });
    await figure.getByRole('button', { name: 'Show table' }).click();
    const cells = await figure
      .getByRole('table')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))));
    // 24 hours back from now, the first taken down to its hour: 25 buckets (24 when now is on the hour).
    expect(cells.length === 24 || cells.length === 25).toBe(true);
    expect(cells.reduce((sum, [requests]) => sum + requests, 0)).toBe(6);
    expect(cells.reduce((sum, [, failed]) => sum + failed, 0)).toBe(1);

    // By model: the answered runs and the failed one apart.
    await expectEventually(async () =>
      expect(
        await page
          .getByTestId('group-total-row')
          .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent).slice(0, 4))),
      ).toEqual([
        ['fake-overview-chat', '5', '0', '6500'],
        ['fake-overview-broken', '1', '1', '0'],
      ]),
    );
    // The budget's spend this month is the runs' cost (when a new month began since the runs, it starts again from 0).
    const budget = page.getByTestId('budget');
    expect(await budget.textContent()).toMatch(/^workspace, month/);
    if (new Date().toISOString().slice(0, 7) === runsMonth)
      expect(await budget.textContent()).toContain(`$${((5 * RUN_COST) / 1_000_000).toFixed(6)} of $0.100000 (9.2 %)`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('overview'), fullPage: true });

    // By artifact: the deployment's endpoint id.
    await page.locator('label', { hasText: 'Artifact' }).click();
    await page.waitForURL((url) => url.searchParams.get('group') === 'artifact');
    await expectEventually(async () =>
      expect(await page.getByTestId('group-total-row').evaluateAll((rows) => rows.map((row) => row.children[0].textContent))).toEqual([
        applied.prompt_endpoint_id,
      ]),
    );
  });

  it('works at phone width and passes the axe scan', async () => {
    await page.setViewportSize(PHONE);
    try {
      await page.getByTestId('summary-requests').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: screenshot('overview-phone') });
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });

  it("lists the delivery log, filters it by request id and shows a delivery's attempts", async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL((url) => url.pathname === '/console/webhooks');
    // The pointer off the navigation: the scan reads the link as it rests, not hovered.
    await page.mouse.move(640, 790);
    await expectEventually(async () => expect(await page.getByTestId('delivery-row').count()).toBe(2));
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('webhooks-deliveries'), fullPage: true });

    await page.getByLabel('Request id').fill(okRun);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('request_id') === okRun);
    await expectEventually(async () => expect(await page.getByTestId('delivery-row').count()).toBe(1));
    const delivery = await deliveryOf(okRun);
    await page.getByRole('button', { name: `1 attempt(s) of ${delivery.delivery_id}` }).click();
    const attempt = page.getByTestId('attempt-row');
    await attempt.waitFor();
    expect(await attempt.locator('td').nth(2).textContent()).toBe('200');
  });

  it('shows the dead letter with its failed attempts and replays it once the receiver answers again', async () => {
    await page.getByRole('tab', { name: 'Dead letters' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'dead-letters');
    const rows = page.getByTestId('delivery-row');
    await expectEventually(async () => expect(await rows.count()).toBe(1));
    const dead = await deliveryOf(deadRun);
    expect(await rows.first().getAttribute('data-delivery-id')).toBe(dead.delivery_id);
    await page.getByRole('button', { name: `${ATTEMPTS} attempt(s) of ${dead.delivery_id}` }).click();
    await expectEventually(async () =>
      expect(await page.getByTestId('attempt-row').evaluateAll((found) => found.map((row) => row.children[2].textContent))).toEqual(
        Array.from({ length: ATTEMPTS }, () => '500'),
      ),
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('webhooks-dead-letters'), fullPage: true });

    // The receiver answers again: the replay is delivered (the same webhook-id), and the dead letter leaves the list.
    receiver.script('/dead', []);
    const before = receiver.on('/dead').length;
    await page.getByRole('button', { name: `Replay ${dead.delivery_id}` }).click();
    await expectEventually(async () => expect(receiver.on('/dead').length).toBe(before + 1));
    expect(receiver.on('/dead').at(-1)?.headers['webhook-id']).toBe(receiver.on('/dead')[0].headers['webhook-id']);
    await expectEventually(async () => expect((await deliveryOf(deadRun)).status).toBe('succeeded'));
    expect(await page.getByTestId('delivery-notice').textContent()).toMatch(new RegExp(`^Delivery ${dead.delivery_id} sent again`));
    await page.reload();
    await page.getByText('0 dead letter(s) on this page, newest first').waitFor();
  });

  it("rotates a deployment's webhook secret behind a confirmation: shown once, the old one refused, the new one accepted", async () => {
    await page.getByRole('tab', { name: 'Secrets' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'secrets');
    await page.getByRole('button', { name: 'Rotate the secret of prompt overview-answers' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Rotate the secret' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('webhooks-secrets') });
    await dialog.getByRole('button', { name: 'Rotate the secret' }).click();
    const shown = dialog.getByTestId('new-secret');
    await shown.waitFor();
    const secret = (await shown.textContent()) ?? '';
    expect(secret).not.toBe(applied.webhook_secret);
    expect(secret.length).toBeGreaterThan(20);
    expect(page.url()).not.toContain(secret);
    expect(await dialog.textContent()).toContain('The previous secret no longer works.');
    expect(await seriousViolations(page)).toEqual([]);

    expect((await trigger(applied.webhook_secret, '/rotated-old')).status).toBe(401);
    expect((await trigger(secret, '/rotated-new')).status).toBe(202);
    // Its run answers the callback (and leaves no job behind in the queues for the next spec).
    await expectEventually(async () => expect(receiver.on('/rotated-new')).toHaveLength(1));

    // Closed, the secret is gone from the page.
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(secret);
  });

  it('works at phone width and passes the axe scan; the browser reported no error', async () => {
    await page.setViewportSize(PHONE);
    await page.getByRole('tab', { name: 'Delivery log' }).click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'deliveries');
    await page.getByTestId('deliveries-table').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(DESKTOP);
    expect(pageErrors).toEqual([]);
  });
});
