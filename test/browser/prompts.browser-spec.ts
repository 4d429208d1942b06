import { expectEventually, fakeModel, loadCatalogWithFakeModels } from '@waggle/testing';
import type { Page } from 'playwright-core';
import { seriousViolations } from './support/chromium';
import { DESKTOP, logIn, PHONE, screenshot, startConsoleStack, type ConsoleStack } from './support/console-stack';

/** A prompt file with a role the API refuses, on line 7. */
const BAD_ROLE = `prompts:
  - deployment: capitals
    variants:
      - name: base
        model: fake-prompts-chat
        messages:
          - role: robot
            content: "{{ city }}"
`;
const FIRST = BAD_ROLE.replace('role: robot', 'role: user');
const SECOND = FIRST.replace('content: "{{ city }}"', 'content: "Capital: {{ city }}"');
/** A deployment whose `default` variant is served as a 70/30 split over its two others. */
const SPLIT = `prompts:
  - deployment: greetings
    variants:
      - name: formal
        model: fake-prompts-chat
        messages: [{ role: user, content: "Good day {{ name }}" }]
      - name: casual
        model: fake-prompts-chat
        messages: [{ role: user, content: "Hi {{ name }}" }]
      - name: default
        model: fake-prompts-chat
        messages: [{ role: user, content: "Hello {{ name }}" }]
        split:
          - { variant: formal, weight: 70 }
          - { variant: casual, weight: 30 }
`;

/** The parts of a text area and of a grid cell the page's scripts read (the tests compile without the DOM's types). */
interface TextSelection {
  value: string;
  selectionStart: number;
  selectionEnd: number;
}
interface GridCellElement {
  getAttribute(name: string): string | null;
  textContent: string | null;
}

interface RunView {
  id: string;
  status: string;
  summary: Array<{ candidate: string; vs_baseline?: { regressed_rows: string[] } }>;
}

/**
 * The prompts and experiments screens in a real headless Chromium against the gateway, the
 * catalog and the invocation service (which owns deployments, releases, datasets and experiment
 * runs), with the fake model provider answering `Echo: <last user message>`: apply a prompt from
 * YAML (a refusal placed on its line, then a success), diff two versions, move the release
 * pointers through the confirmation dialogs (a refusal of the release gate included), and read a
 * dataset and an experiment run's results grid. Every screen passes the axe scan.
 */
describe('the web console: prompts, releases and experiments', () => {
  let stack: ConsoleStack;
  let page: Page;
  let gateway: string;
  let datasetId: string;
  let romeRowId: string;

  const applyText = async (text: string) => {
    await page.getByLabel('Definition file (YAML)').fill(text);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
  };
  /** Opens a screen from the navigation, then moves the pointer off it (a hovered link is not what the scans judge). */
  const navigateTo = async (name: string, path: string) => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name, exact: true }).click();
    await page.waitForURL(`${gateway}/console${path}`);
    await page.mouse.move(DESKTOP.width - 1, DESKTOP.height - 1);
  };
  /** A full-page screenshot for the docs, taken from the top (a scrolled page repeats the fixed header). */
  const shoot = async (name: string) => {
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: screenshot(name), fullPage: true });
  };
  /** Confirms the open dialog with its button. */
  const confirm = async (name: string) => {
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name, exact: true }).click();
  };

  beforeAll(async () => {
    stack = await startConsoleStack({ apps: ['catalog', 'invocation'], workspaceName: 'browser prompts' });
    ({ page, gateway } = stack);
    await loadCatalogWithFakeModels('2099.9.1', [fakeModel('fake-prompts-chat', { reasoning: false })]);
    await logIn(stack, '/prompts/apply');
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('applies a prompt from YAML: the refusal is shown on the line it names and the text stays, then the fixed file applies', async () => {
    await page.getByLabel('Definition file (YAML)').waitFor();
    await applyText(BAD_ROLE);
    const onLine = page.getByTestId('apply-error-line-7');
    await onLine.waitFor();
    expect(await onLine.textContent()).toMatch(/robot[\s\S]*prompts\.0\.variants\.0\.messages\.0\.role/);
    expect(await page.getByTestId('apply-error').count()).toBe(1);
    expect(await page.getByRole('alert').first().textContent()).toMatch(/Error 422 \(validation_error\)/);
    expect(await page.getByLabel('Definition file (YAML)').inputValue()).toBe(BAD_ROLE);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('prompts-apply-error');

    // "Go to line" puts the caret on the line in the text area.
    await onLine.getByRole('button', { name: 'Go to line 7' }).click();
    const selected = await page.getByLabel('Definition file (YAML)').evaluate((element) => {
      const area = element as unknown as TextSelection;
      return area.value.slice(area.selectionStart, area.selectionEnd);
    });
    expect(selected).toBe('          - role: robot');

    await applyText(FIRST);
    await page.getByTestId('apply-success').waitFor();
    expect(await page.getByTestId('apply-error').count()).toBe(0);
    expect(await page.getByTestId('apply-success').textContent()).toContain('capitals: base version 1');
    await applyText(SECOND);
    await page.getByTestId('apply-success').filter({ hasText: 'base version 2' }).waitFor();
  });

  it('lists the deployments with their variants, at desktop and at phone width', async () => {
    await navigateTo('Prompts and workflows', '/prompts');
    const row = page.getByTestId('prompts-variant-row').filter({ hasText: 'capitals' });
    await row.waitFor();
    expect((await row.textContent()) ?? '').toMatch(/capitals\s*base\s*2\s*fake-prompts-chat/);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('prompts');

    await page.setViewportSize(PHONE);
    await row.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(DESKTOP);
  });

  it('diffs two chosen versions of a variant', async () => {
    await page.getByRole('link', { name: 'base', exact: true }).click();
    await page.waitForURL(/\/console\/prompts\/prompts\/capitals\/base/);
    await page.getByTestId('version-row').nth(1).waitFor();
    expect(await page.getByTestId('version-row').allTextContents()).toEqual([
      expect.stringMatching(/^2\s*deployed\s*latest/),
      expect.stringMatching(/^1/),
    ]);
    await page.getByLabel('From version', { exact: true }).selectOption('2');
    await page.waitForURL((url) => url.searchParams.get('from') === '2');
    expect(await page.getByTestId('diff-summary').textContent()).toBe('Versions 2 and 2 are the same.');
    await page.getByLabel('From version', { exact: true }).selectOption('1');
    await page.waitForURL((url) => url.searchParams.get('from') === '1');
    await page.getByLabel('To version', { exact: true }).selectOption('2');
    await page.waitForURL((url) => url.searchParams.get('to') === '2');
    expect(await page.getByTestId('diff-summary').textContent()).toBe('2 changed line(s) from version 1 to version 2.');
    const diff = page.getByTestId('version-diff');
    expect(await diff.locator('li[data-kind="removed"]').allTextContents()).toEqual(['-   - content: "{{ city }}"']);
    expect(await diff.locator('li[data-kind="added"]').allTextContents()).toEqual(['+   - content: "Capital: {{ city }}"']);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('prompts-diff');
  });

  it('rolls back, sets a label and promotes through confirmation dialogs, showing a refusal of the release gate, with the history updating', async () => {
    const history = page.getByTestId('history-row');
    // Roll the deployed version back to 1.
    await page.getByLabel('Rollback reason').fill('back to the plain answer');
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    await confirm('Roll back');
    await history.filter({ hasText: 'back to the plain answer' }).waitFor();
    expect(await history.first().textContent()).toMatch(/deployed\s*2\s*1\s*api_key:/);
    await page.getByTestId('version-row').filter({ hasText: 'deployed' }).filter({ hasText: /^1/ }).waitFor();

    // Point a label at version 2.
    await page.getByLabel('Label', { exact: true }).fill('staging');
    await page.getByLabel('Label version').selectOption('2');
    await page.getByRole('button', { name: 'Set label' }).click();
    await confirm('Set label');
    await history.filter({ hasText: 'staging' }).waitFor();
    await page.getByTestId('version-row').filter({ hasText: 'staging' }).filter({ hasText: /^2/ }).waitFor();

    // Protected, the variant refuses a promotion without a gating run: the catalog's error stays in the dialog.
    expect((await stack.api('PUT', '/v1/private/prompts/capitals/variants/base/protection', { protected: true })).status).toBe(200);
    await page.reload();
    await page.getByTestId('protection').filter({ hasText: 'Protected' }).waitFor();
    await page.getByLabel('Promote version').selectOption('2');
    await page.getByRole('button', { name: 'Promote', exact: true }).click();
    await confirm('Promote');
    const refusal = page.getByRole('dialog').getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/^Error 409 \(release_gate_not_satisfied\)/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    // An override with a reason passes, and the history says so.
    await page.getByLabel('Promotion reason').fill('hotfix for incident 4411');
    await page.getByLabel('Override the release gate (needs a reason)').check();
    await page.getByRole('button', { name: 'Promote', exact: true }).click();
    await confirm('Promote');
    const promoted = history.filter({ hasText: 'hotfix for incident 4411' });
    await promoted.waitFor();
    expect(await promoted.textContent()).toMatch(/deployed\s*1\s*2\s*api_key:.*override/);
    expect(await history.count()).toBeGreaterThanOrEqual(3);
    // The dialog has closed (its overlay would dim what the scan judges).
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('prompts-releases');
  });

  it("shows a variant's split on the deployments list and on the variant's screen", async () => {
    await navigateTo('Prompts and workflows', '/prompts');
    await page.getByRole('link', { name: 'Apply YAML' }).click();
    await page.waitForURL(`${gateway}/console/prompts/apply`);
    await applyText(SPLIT);
    await page.getByTestId('apply-success').filter({ hasText: 'greetings' }).waitFor();

    await navigateTo('Prompts and workflows', '/prompts');
    const rows = page.getByTestId('prompts-variant-row');
    const splitRow = rows.filter({ hasText: 'formal (deployed) 70%' });
    await splitRow.waitFor();
    expect(await splitRow.textContent()).toMatch(/^default\s*1\s*fake-prompts-chat/);
    expect(await splitRow.getByTestId('variant-split').textContent()).toBe('formal (deployed) 70%, casual (deployed) 30%');
    expect(await rows.filter({ hasText: 'capitals' }).getByTestId('variant-split').textContent()).toBe('');
    expect(await seriousViolations(page)).toEqual([]);

    await splitRow.getByRole('link', { name: 'default', exact: true }).click();
    await page.waitForURL(/\/console\/prompts\/prompts\/greetings\/default/);
    await page.getByTestId('split-row').nth(1).waitFor();
    expect(await page.getByTestId('split-row').allTextContents()).toEqual(['formal (deployed)70%', 'casual (deployed)30%']);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('prompts-split');

    // A variant that is not a split says so.
    await page.getByRole('link', { name: 'All deployments' }).click();
    await page.waitForURL(`${gateway}/console/prompts`);
    await page.getByRole('link', { name: 'formal', exact: true }).click();
    await page.waitForURL(/\/console\/prompts\/prompts\/greetings\/formal/);
    await page.getByTestId('split-none').waitFor();
    expect(await page.getByTestId('split-row').count()).toBe(0);
  });

  it('lists the datasets, their versions and their rows a page at a time', async () => {
    const created = await stack.api('POST', '/v1/private/datasets', { name: 'capitals', description: 'Cities and what to answer' });
    expect(created.status).toBe(201);
    datasetId = created.body.id;
    const first = await stack.api('POST', `/v1/private/datasets/${datasetId}/versions`, {
      rows: ['Paris', 'Rome', 'Oslo'].map((city) => ({ inputs: { city }, expected_output: city })),
    });
    expect(first.status).toBe(201);
    const extra = Array.from({ length: 20 }, (_, index) => ({ inputs: { city: `Town ${index}` }, expected_output: `Town ${index}` }));
    expect((await stack.api('POST', `/v1/private/datasets/${datasetId}/versions`, { base_version: 1, add: extra })).status).toBe(201);
    const rows = await stack.api('GET', `/v1/private/datasets/${datasetId}/versions/1/rows`);
    romeRowId = rows.body.rows[1].id;

    await navigateTo('Experiments', '/experiments');
    await page.getByRole('link', { name: 'capitals', exact: true }).click();
    await page.waitForURL(/\/console\/experiments\/datasets\//);
    // The newest version (23 rows) is shown first, 20 to a page.
    await page.getByText('23 row(s) in version 2', { exact: true }).waitFor();
    expect(await page.getByTestId('dataset-row-item').count()).toBe(20);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '1');
    await expectEventually(async () => expect(await page.getByTestId('dataset-row-item').count()).toBe(3));
    expect(await page.getByTestId('dataset-row-item').last().textContent()).toContain('Town 19');

    await page.getByRole('button', { name: 'Version 1' }).click();
    await page.waitForURL((url) => url.searchParams.get('version') === '1' && !url.searchParams.has('page'));
    await page.getByText('3 row(s) in version 1', { exact: true }).waitFor();
    expect(await page.getByTestId('dataset-row-item').allTextContents()).toEqual([
      expect.stringContaining('{"city":"Paris"}Paris'),
      expect.stringContaining('{"city":"Rome"}Rome'),
      expect.stringContaining('{"city":"Oslo"}Oslo'),
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('experiments-datasets');
  });

  it("shows an experiment run's results grid with the regressed row highlighted", async () => {
    const created = await stack.api('POST', '/v1/private/experiment_runs', {
      name: 'capitals check',
      dataset: datasetId,
      dataset_version: 1,
      candidates: [
        { name: 'base', deployment: 'capitals', variant: 'base' },
        {
          name: 'next',
          inline: {
            model: 'fake-prompts-chat',
            messages: [{ role: 'user', content: "{% if city == 'Rome' %}Madrid{% else %}{{ city }}{% endif %}" }],
          },
        },
      ],
      evaluators: [{ type: 'contains' }],
      baseline: 'base',
      min_pass_rate: 0.5,
    });
    expect(created.status).toBe(201);
    const runId: string = created.body.id;
    const run = await expectEventually(
      async () => {
        const answer = await stack.api('GET', `/v1/private/experiment_runs/${runId}`);
        expect(answer.body.status).toBe('completed');
        return answer.body as RunView;
      },
      { timeoutMs: 60_000 },
    );
    expect(run.summary.find((summary) => summary.candidate === 'next')?.vs_baseline?.regressed_rows).toEqual([romeRowId]);

    await navigateTo('Experiments', '/experiments');
    await page.getByTestId('experiment-run-row').filter({ hasText: 'capitals check' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'capitals check' }).click();
    await page.waitForURL(`${gateway}/console/experiments/runs/${runId}`);
    await page.getByTestId('experiment-run-status').filter({ hasText: 'completed' }).waitFor();
    await page.getByTestId('grid-row').nth(2).waitFor();
    const grid = await page
      .getByTestId('grid-row')
      .evaluateAll((lines) =>
        lines.map((line) => [
          line.querySelector('th')?.textContent ?? '',
          ...(Array.from(line.querySelectorAll('[data-testid="grid-cell"]')) as unknown as GridCellElement[]).map(
            (cell) => `${cell.getAttribute('data-regressed') === 'true' ? 'REGRESSED ' : ''}${cell.textContent ?? ''}`,
          ),
        ]),
      );
    expect(grid).toEqual([
      ['{"city":"Paris"}', expect.stringMatching(/^passedEcho: Capital: Paris/), expect.stringMatching(/^passedEcho: Paris/)],
      [
        '{"city":"Rome"}',
        expect.stringMatching(/^passedEcho: Capital: Rome/),
        expect.stringMatching(/^REGRESSED failedregressedEcho: Madridcontains: 0\.00/),
      ],
      ['{"city":"Oslo"}', expect.stringMatching(/^passedEcho: Capital: Oslo/), expect.stringMatching(/^passedEcho: Oslo/)],
    ]);
    expect(await page.getByTestId('regressed-rows').textContent()).toBe('1 regressed row(s)');
    expect(await seriousViolations(page)).toEqual([]);
    await shoot('experiments-grid');

    await page.setViewportSize(PHONE);
    await page.getByTestId('grid-row').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize(DESKTOP);
  });

  it('pages the experiment runs, newest first, with Older and Newer', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const created = await stack.api('POST', '/v1/private/experiment_runs', {
        name: `paged ${index}`,
        dataset: datasetId,
        dataset_version: 1,
        candidates: [{ name: 'base', deployment: 'capitals', variant: 'base' }],
        evaluators: [{ type: 'contains' }],
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    // Every run ended, so the list stays still while it is read.
    await expectEventually(
      async () => {
        const listed = await stack.api('GET', '/v1/private/experiment_runs?limit=100');
        expect(listed.body.experiment_runs.filter((run: RunView) => run.status === 'queued' || run.status === 'running')).toEqual([]);
      },
      { timeoutMs: 60_000 },
    );

    await navigateTo('Experiments', '/experiments');
    const runRows = page.getByTestId('experiment-run-row');
    await runRows.filter({ hasText: 'paged 19' }).waitFor();
    const names = async () => (await runRows.allTextContents()).map((text) => /^(paged \d+|capitals check)/.exec(text)?.[1]);
    expect(await names()).toEqual(Array.from({ length: 20 }, (_, index) => `paged ${19 - index}`));
    const pages = page.getByRole('navigation', { name: 'Pages of experiment runs' });
    expect(await pages.getByRole('button', { name: 'Newer runs' }).isDisabled()).toBe(true);

    await pages.getByRole('button', { name: 'Older runs' }).click();
    await pages.getByText('Page 2').waitFor();
    await runRows.filter({ hasText: 'capitals check' }).waitFor();
    expect(await names()).toEqual(['capitals check']);
    expect(await pages.getByRole('button', { name: 'Older runs' }).isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await pages.getByRole('button', { name: 'Newer runs' }).click();
    await pages.getByText('Page 1').waitFor();
    await runRows.filter({ hasText: 'paged 19' }).waitFor();
    expect(await runRows.count()).toBe(20);
  });

  it('reported no browser errors other than the refusals the tests provoked', () => {
    expect(stack.pageErrors.filter((message) => !/status of (409|422)/.test(message))).toEqual([]);
  });
});
