import type { AppliedDeployment, RequestListItem } from '@waggle/contracts';
import { CallbackReceiver, cliJson, expectEventually, fakeModel, loadCatalogWithFakeModels } from '@waggle/testing';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { seriousViolations } from './support/chromium';
import { DESKTOP, logIn, PHONE, screenshot, startConsoleStack, type ConsoleStack } from './support/console-stack';

const TRACE_TEMPLATE = 'https://traces.example.com/trace/{trace_id}?from=waggle';

const PROMPTS = `
prompts:
  - deployment: runs-cheap
    variants:
      - name: default
        model: fake-runs-cheap
        messages:
          - { role: user, content: "{{ question }}" }
  - deployment: runs-dear
    variants:
      - name: default
        model: fake-runs-dear
        messages:
          - { role: user, content: "{{ question }}" }
  - deployment: runs-held
    variants:
      - name: default
        model: fake-runs-held
        messages:
          - { role: user, content: "{{ question }}" }
`;

const WORKFLOWS = `
workflows:
  - deployment: runs-flow
    variants:
      - name: default
        inputs: { topic: { type: text, required: true } }
        output: "{{ wrap.output }}"
        steps:
          - { id: brief, type: template, text: "Brief on {{ topic }}" }
          - { id: ask, type: prompt, model: fake-runs-cheap, messages: [ { role: user, content: "{{ brief.output }}" } ] }
          - { id: wrap, type: template, text: "Done: {{ ask.output }}" }
`;

/**
 * The Runs and Run detail screens in a real Chromium against the gateway, invocation, catalog and
 * callback dispatcher: the new ledger filters through the URL and the export, a workflow run's
 * waterfall, a callback redelivered, a running run cancelled and followed live, the trace link
 * from the operator's template, and the axe scan of both screens at desktop and phone width.
 */
describe('the web console: runs and run detail', () => {
  const receiver = new CallbackReceiver();
  let stack: ConsoleStack;
  let page: Page;
  let gateway: string;
  let receiverUrl: string;
  let keyId: string;
  let cheap: AppliedDeployment;
  const cheapRuns: string[] = [];
  const dearRuns: string[] = [];

  async function invoke(deployment: string, question: string, metadata: Record<string, string>): Promise<string> {
    const response = await stack.api('POST', '/v1/prompt/invoke', { deployment, variant: 'default', inputs: { question }, metadata });
    expect(response.status).toBe(200);
    return (response.body as { request_id: string }).request_id;
  }

  const run = async (requestId: string) => (await stack.api('GET', `/v1/public/requests/${requestId}`)).body as RequestListItem;

  beforeAll(async () => {
    receiverUrl = await receiver.start();
    stack = await startConsoleStack({
      apps: ['catalog', 'invocation', 'callback-dispatcher'],
      env: { CALLBACK_URL_ALLOWLIST: '127.0.0.1', CONSOLE_TRACE_URL_TEMPLATE: TRACE_TEMPLATE },
      workspaceName: 'browser runs',
    });
    ({ page, gateway } = stack);
    await loadCatalogWithFakeModels('2099.8.2', [
      fakeModel('fake-runs-cheap', { reasoning: false }),
      // A hundred times the price: its runs cost more than any cheap one.
      fakeModel('fake-runs-dear', {
        reasoning: false,
        pricing: { input: 100, cached_input: 10, cache_write: 125, output: 400, price_version: 'fake-1' },
      }),
      fakeModel('fake-runs-held', { reasoning: false }),
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'waggle-console-runs-'));
    writeFileSync(join(dir, 'prompts.yaml'), PROMPTS);
    writeFileSync(join(dir, 'workflows.yaml'), WORKFLOWS);
    const applied = await cliJson<AppliedDeployment[]>(['apply', '-f', join(dir, 'prompts.yaml'), '--workspace', stack.workspaceId]);
    cheap = applied.find((deployment) => deployment.deployment === 'runs-cheap') as AppliedDeployment;
    await cliJson(['apply', '-f', join(dir, 'workflows.yaml'), '--workspace', stack.workspaceId]);
    keyId = ((await stack.api('GET', '/v1/private/workspace')).body as { api_key: { id: string } }).api_key.id;
    cheapRuns.push(await invoke('runs-cheap', 'one', { ticket: 'T-1' }));
    cheapRuns.push(await invoke('runs-cheap', 'two', { ticket: 'T-2' }));
    dearRuns.push(await invoke('runs-dear', 'three', { ticket: 'T-2' }));
    await logIn(stack, '/runs');
  });

  afterAll(async () => {
    // The shipped catalog back while the catalog service still runs.
    await cliJson(['catalog', 'load', '--force']);
    await stack?.stop();
    await receiver.stop();
  });

  it('filters by model and a metadata pair through the URL, shows the model column, and exports what it shows', async () => {
    await page.getByTestId('run-row').first().waitFor();
    await page.getByLabel('Model', { exact: true }).fill('fake-runs-cheap');
    await page.getByLabel('Metadata key').fill('ticket');
    await page.getByLabel('Metadata value').fill('T-2');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('model') === 'fake-runs-cheap');
    const params = new URL(page.url()).searchParams;
    expect([params.get('metadata_key'), params.get('metadata_value')]).toEqual(['ticket', 'T-2']);
    await expectRows(page, [cheapRuns[1]]);
    expect(await page.getByTestId('run-row').first().textContent()).toContain('fake-runs-cheap');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('runs-filters'), fullPage: true });

    // A link: opened afresh, the same filters and runs.
    await page.reload();
    await expectRows(page, [cheapRuns[1]]);
    expect(await page.getByLabel('Metadata value').inputValue()).toBe('T-2');

    const jsonl = await download(page, 'Export JSONL');
    const exported = jsonl
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as RequestListItem);
    expect(exported.map((row) => [row.request_id, row.model, row.metadata])).toEqual([
      [cheapRuns[1], 'fake-runs-cheap', { ticket: 'T-2' }],
    ]);
  });

  it('filters by API key and cost range, and exports the CSV of the same runs', async () => {
    const dearCost = (await run(dearRuns[0])).cost_micros ?? 0;
    const cheapCost = Math.max(...(await Promise.all(cheapRuns.map(async (id) => (await run(id)).cost_micros ?? 0))));
    expect(dearCost).toBeGreaterThan(cheapCost);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.search === '');
    await page.getByLabel('API key id').fill(keyId);
    await page.getByLabel('Min cost (USD)').fill((dearCost / 1_000_000).toFixed(6));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('api_key') === keyId);
    // The router writes the amount as a bare number.
    expect(Number(new URL(page.url()).searchParams.get('min_cost'))).toBe(dearCost / 1_000_000);
    await expectRows(page, dearRuns);

    await page.getByLabel('Min cost (USD)').fill('');
    await page.getByLabel('Max cost (USD)').fill((cheapCost / 1_000_000).toFixed(6));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('max_cost') !== null && url.searchParams.get('min_cost') === null);
    await expectRows(page, [...cheapRuns].reverse());
    const csv = await download(page, 'Export CSV');
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    const model = header.split(',').indexOf('model');
    expect(model).toBeGreaterThan(0);
    expect(lines.map((line) => [line.split(',')[0], line.split(',')[model]])).toEqual(
      [...cheapRuns].reverse().map((id) => [id, 'fake-runs-cheap']),
    );
  });

  it("opens a workflow run's waterfall from its row: one bar per step, in order, with the trace link from the operator's template", async () => {
    const flow = await stack.api('POST', '/v1/workflow/invoke', { deployment: 'runs-flow', variant: 'default', inputs: { topic: 'bees' } });
    expect(flow.status).toBe(200);
    const flowId = (flow.body as { request_id: string }).request_id;
    await page.goto(`${gateway}/console/runs`);
    // The row's link is reachable from the keyboard: focused, Enter opens the detail.
    const link = page.getByRole('link', { name: `Run ${flowId}` });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${gateway}/console/runs/${flowId}`);
    const bars = page.getByTestId('waterfall-bar');
    await expectEventually(async () =>
      expect(await bars.evaluateAll((all) => all.map((bar) => bar.getAttribute('data-step')))).toEqual(['brief', 'ask', 'wrap']),
    );
    expect(await page.getByRole('region', { name: 'Workflow inputs' }).textContent()).toContain('"topic": "bees"');
    const traceId = (await run(flowId)).trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(await page.getByTestId('trace-link').getAttribute('href')).toBe(TRACE_TEMPLATE.replace('{trace_id}', traceId ?? ''));
    // A step's inputs and output, opened from the keyboard.
    await page.getByText('Step ask: inputs and output').click();
    expect(await page.getByRole('region', { name: 'Output of step ask' }).textContent()).toContain('Echo: Brief on bees');
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: screenshot('run-detail-workflow'), fullPage: true });
    await page.setViewportSize(PHONE);
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: screenshot('run-detail-phone'), fullPage: true });
    await page.setViewportSize(DESKTOP);
  });

  it('redelivers a callback: a new attempt appears, and the receiver gets the callback again', async () => {
    const variantId = cheap.variants[0].variant_id;
    const trigger = await fetch(`${gateway}/v1/prompt/webhooks/${cheap.prompt_endpoint_id}/variants/${variantId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': cheap.webhook_secret ?? '' },
      body: JSON.stringify({ inputs: { question: 'call me back' }, async: { callback_url: `${receiverUrl}/runs-callback` } }),
    });
    expect(trigger.status).toBe(202);
    const { request_id: triggered } = (await trigger.json()) as { request_id: string };
    await expectEventually(() => expect(receiver.on('/runs-callback')).toHaveLength(1));

    await page.goto(`${gateway}/console/runs/${triggered}`);
    const attempts = page.getByTestId('delivery-attempt');
    await expectEventually(async () => expect(await attempts.count()).toBe(1));
    await page.getByRole('button', { name: /^Redeliver / }).click();
    await expectEventually(async () => expect(await attempts.count()).toBe(2));
    await expectEventually(() => expect(receiver.on('/runs-callback')).toHaveLength(2));
    const [first, second] = receiver.on('/runs-callback');
    // The same callback, sent again.
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: screenshot('run-detail-deliveries'), fullPage: true });
  });

  it('cancels a running run from its detail, and the Runs page follows a running run live until it ends', async () => {
    const release = stack.fake.hold('fake-runs-held');
    try {
      // Held at the fake provider: the run stays running until it is cancelled.
      const first = stack.api('POST', '/v1/prompt/invoke', { deployment: 'runs-held', variant: 'default', inputs: { question: 'wait' } });
      const heldId = await runningRun();
      await page.goto(`${gateway}/console/runs/${heldId}`);
      await page.getByTestId('run-status').getByText('running').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await page.getByTestId('run-status').getByText('cancelled').waitFor();
      expect((await run(heldId)).status).toBe('cancelled');
      await first;

      // The Runs page asks again while a run on it is running, and shows its end without a reload.
      const second = stack.api('POST', '/v1/prompt/invoke', { deployment: 'runs-held', variant: 'default', inputs: { question: 'again' } });
      const liveId = await runningRun();
      await page.goto(`${gateway}/console/runs`);
      const row = page.getByTestId('run-row').filter({ hasText: liveId });
      await row.getByText('running').waitFor();
      expect((await stack.api('POST', `/v1/public/requests/${liveId}/cancel`)).status).toBe(200);
      await row.getByText('cancelled').waitFor();
      await second;
    } finally {
      release();
    }
  });

  it("replays a background stream's kept events as a list, to the end of the run", async () => {
    const streamed = await stack.api('POST', '/v1/prompt/invoke', {
      deployment: 'runs-cheap',
      variant: 'default',
      inputs: { question: 'replay me' },
      streaming: true,
      background: true,
    });
    expect(streamed.status).toBe(200);
    // The newest run of the workspace (nothing else runs meanwhile).
    const newest = (await stack.api('GET', '/v1/private/requests?limit=1')).body as { requests: RequestListItem[] };
    const requestId = newest.requests[0].request_id;
    expect(newest.requests[0].status).toBe('completed');
    await page.goto(`${gateway}/console/runs/${requestId}`);
    await page.getByTestId('run-status').getByText('completed').waitFor();
    await page.getByRole('button', { name: 'Replay events' }).click();
    await page.getByText(/^Replay ended after \d+ event\(s\)\.$/).waitFor();
    const events = await page.getByTestId('run-event').allTextContents();
    expect(events.length).toBeGreaterThan(1);
    expect(events.at(-1)).toBe('message: [DONE]');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('passes the axe scan of the Runs screen at phone width, with no page error', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${gateway}/console/runs?model=fake-runs-cheap`);
    await page.getByTestId('run-row').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(DESKTOP);
    expect(stack.pageErrors).toEqual([]);
  });

  /** The held run's id, once its model call reached the fake provider and its record says running. */
  async function runningRun(): Promise<string> {
    return expectEventually(async () => {
      const listed = (await stack.api('GET', '/v1/private/requests?status=running&model=fake-runs-held')).body as {
        requests: RequestListItem[];
      };
      expect(listed.requests).toHaveLength(1);
      return listed.requests[0].request_id;
    });
  }
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
  return readFileSync(await file.path(), 'utf8');
}
