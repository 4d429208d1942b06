import { cliJson, expectEventually, fakeModel, loadCatalogWithFakeModels, TestHttpsServer } from '@waggle/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { seriousViolations } from './support/chromium';
import { DESKTOP, logIn, PHONE, screenshot, startConsoleStack, type ConsoleStack } from './support/console-stack';

const AGENT_MODEL = 'fake-console-agent';
const EMBEDDER = 'fake-console-embedder';
const HANDBOOK = [
  '# Refund policy',
  '',
  'Refunds are issued within 14 days of the purchase, to the card that paid. The code word for a refund request is PELICAN.',
  '',
  'Gift cards are never refunded; they can be moved to another account once.',
].join('\n');
const ANSWER = 'one two three four five six seven eight';
/**
 * Run in the page (as a script: the test's TypeScript has no DOM types): records in
 * `globalThis.answerLengths` every text length the newest answer shows, as the DOM changes.
 */
const RECORD_ANSWER_LENGTHS = `(() => {
  const lengths = [];
  globalThis.answerLengths = lengths;
  const transcript = document.querySelector('[data-testid="chat-transcript"]');
  new MutationObserver(() => {
    const answers = transcript.querySelectorAll('[data-testid="assistant-text"]');
    const last = answers[answers.length - 1];
    if (last && lengths.at(-1) !== last.textContent.length) lengths.push(last.textContent.length);
  }).observe(transcript, { subtree: true, childList: true, characterData: true });
})()`;

/**
 * The axe scan once no CSS transition or animation runs: a navigation link or a modal fading in
 * has, for a few frames, colours it never rests at.
 */
async function settledViolations(page: Page) {
  // A function, not a string: the console's CSP refuses eval, which a string predicate needs.
  await page.waitForFunction(() =>
    (globalThis as unknown as { document: { getAnimations(): Array<{ playState: string }> } }).document
      .getAnimations()
      .every((animation) => animation.playState !== 'running'),
  );
  return seriousViolations(page);
}

/** The model's answer is held after this many one-word fragments, until the test releases it. */
const HELD_AFTER = 3;
const INGESTION_TIMEOUT_MS = 120_000;

/**
 * The agents and knowledge screens in a real headless Chromium against the gateway, the agent,
 * knowledge-base, asset, catalog and invocation services: an agent created (a 422 shown first),
 * edited and deleted; a chat whose answer is seen streaming (the fake model held mid-answer) and
 * whose tool loop is shown inline; a knowledge base fed an uploaded file, its item followed to
 * completed, searched with its scores; an asset uploaded and listed; axe scans of each screen.
 */
describe('the web console: agents, knowledge bases and assets', () => {
  let stack: ConsoleStack;
  let page: Page;
  let files: string;
  /** Serves the chat's attachment over https, with its own CA the agent service trusts. */
  let attachments: TestHttpsServer;
  let agentId: string;
  let knowledgeBaseId: string;

  beforeAll(async () => {
    attachments = await TestHttpsServer.start();
    attachments.serve('/files/opening-hours.txt', 'The shop opens at 9 and closes at 17, Monday to Saturday.', 'text/plain');
    stack = await startConsoleStack({
      apps: ['catalog', 'invocation', 'agent', 'asset', 'knowledge-base'],
      env: {
        PROVIDER_MAX_RETRIES: '0',
        KB_EMBEDDING_MODEL: EMBEDDER,
        ASSET_STORAGE_DIR: mkdtempSync(join(tmpdir(), 'waggle-console-assets-')),
        ATTACHMENT_URL_ALLOWLIST: '127.0.0.1',
        ATTACHMENT_EXTRA_CA_FILE: attachments.writeCaFile(),
      },
      workspaceName: 'browser agents',
    });
    ({ page } = stack);
    await loadCatalogWithFakeModels('2099.9.41', [
      fakeModel(AGENT_MODEL, { tool_calling: true, reasoning: false, context_limit: 100_000 }),
      fakeModel(EMBEDDER, { model_type: 'embedding', reasoning: false }),
    ]);
    expect((await stack.api('PUT', '/v1/private/knowledge_bases/embedding_model', { embedding_model: EMBEDDER })).status).toBe(200);
    files = mkdtempSync(join(tmpdir(), 'waggle-console-files-'));
    writeFileSync(join(files, 'refund-policy.md'), HANDBOOK);
    writeFileSync(join(files, 'price-list.txt'), 'Tea 3 EUR\nCoffee 4 EUR\n');
    await logIn(stack, '/agents');
  });

  afterAll(async () => {
    await stack?.stop();
    await attachments?.close();
    await cliJson(['catalog', 'load', '--force']).catch(() => undefined);
  });

  it('creates an agent from the form, showing the 422 of a wrong field first, and passes the axe scan', async () => {
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByText('0 agent(s), oldest first').waitFor();
    expect(await settledViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'New agent' }).click();
    const form = page.getByRole('form', { name: 'New agent' });
    await form.getByLabel(/^Name/).fill('Support');
    await form.getByLabel(/^Model\s*\*?$/).fill(AGENT_MODEL);
    await form.getByLabel(/^Instructions/).fill('Answer from the handbook.');
    await form.getByLabel(/^Temperature/).fill('9');
    await form.getByRole('button', { name: 'Create agent' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Error 422 \(validation_error\)/);
    expect(await settledViolations(page)).toEqual([]);

    await form.getByLabel(/^Temperature/).fill('0.2');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL(/\/console\/agents\/[0-9a-f-]{36}$/);
    agentId = page.url().split('/').pop() ?? '';
    await page.getByRole('heading', { name: 'Support', level: 1 }).waitFor();
    const created = await stack.api('GET', `/v1/public/workspaces/${stack.workspaceId}/agents/${agentId}`);
    expect(created.body.agent).toEqual(
      expect.objectContaining({
        name: 'Support',
        llm_model: AGENT_MODEL,
        temperature: 0.2,
        instruction_prompt: 'Answer from the handbook.',
      }),
    );
  });

  it('edits the agent in its settings, unsetting an emptied field', async () => {
    await page.getByRole('tab', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Agent settings' });
    await form.getByLabel(/^Description/).fill('Front desk');
    await form.getByLabel(/^Temperature/).fill('');
    await form.getByRole('button', { name: 'Save agent' }).click();
    await expectEventually(async () =>
      expect((await stack.api('GET', `/v1/public/workspaces/${stack.workspaceId}/agents/${agentId}`)).body.agent).toEqual(
        expect.objectContaining({ description: 'Front desk', temperature: null }),
      ),
    );
    expect(await settledViolations(page)).toEqual([]);
  });

  it('chats with the agent and shows the answer while it streams, then whole', async () => {
    stack.fake.setModel(AGENT_MODEL, { response: ANSWER });
    await page.getByRole('tab', { name: 'Chat' }).click();
    // Every text length the answer shows, as the DOM changes.
    await page.evaluate(RECORD_ANSWER_LENGTHS);
    const gate = stack.fake.gate(AGENT_MODEL, HELD_AFTER);
    await page.getByLabel(/^Message/).fill('Count to eight');
    await page.getByRole('button', { name: 'Send' }).click();
    await gate.reached;
    // Held mid-answer: the first words are on the page, the turn is still streaming.
    const answer = page.getByTestId('assistant-text').last();
    const partial = ANSWER.split(' ').slice(0, HELD_AFTER).join(' ');
    await expectEventually(async () => expect((await answer.textContent())?.trim()).toBe(partial));
    expect(await page.getByTestId('assistant-turn').last().getAttribute('aria-busy')).toBe('true');
    expect(await page.getByTestId('user-turn').last().textContent()).toContain('Count to eight');

    gate.release();
    await page.getByTestId('assistant-turn').last().and(page.locator('[aria-busy="false"]')).waitFor();
    expect(await answer.textContent()).toBe(ANSWER);
    const lengths = (await page.evaluate('globalThis.answerLengths')) as number[];
    expect(lengths.at(-1)).toBe(ANSWER.length);
    expect(lengths.filter((length) => length > 0 && length < ANSWER.length).length).toBeGreaterThanOrEqual(1);
    expect(lengths).toEqual([...lengths].sort((x, y) => x - y));
    // Screen readers hear the whole answer once, not every fragment.
    expect(await page.getByTestId('chat-announcement').textContent()).toBe(`The agent answered: ${ANSWER}`);
    // The thread is the API's: the agent service kept the turn.
    const thread = await page.getByTestId('thread-select').inputValue();
    expect(thread).toMatch(/^console-[0-9a-f]{8}$/);
  });

  it('attaches a file by URL: the agent reads it with read_file, shown inline; a refused attachment shows the 422', async () => {
    const url = attachments.url('/files/opening-hours.txt');
    stack.fake.setModel(AGENT_MODEL, {
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { file_url: url } }] }, { response: 'From 9 to 17.' }],
    });
    await page.getByLabel(/^Message/).fill('When do you open?');
    await page.getByLabel(/^Attachment URLs/).fill(url);
    await page.getByRole('button', { name: 'Send' }).click();
    const turn = page.getByTestId('assistant-turn').last();
    await turn.and(page.locator('[aria-busy="false"]')).waitFor();
    expect(await page.getByTestId('user-turn').last().textContent()).toContain(`Attached: ${url}`);
    const tool = turn.getByTestId('tool-call');
    expect(await tool.textContent()).toContain('read_file');
    expect(await tool.getByTestId('tool-observation').textContent()).toContain('The shop opens at 9');
    expect(await turn.getByTestId('assistant-text').textContent()).toBe('From 9 to 17.');
    // The thread is the agent service's: the model got its earlier turn back.
    const resumed = await stack.fake.waitForRequest((record) => record.lastUserText.includes('When do you open?'));
    expect(JSON.stringify(resumed.body)).toContain('Count to eight');

    // Refused before any model call: the catalog's message, and the message stays out of the transcript.
    const turns = await page.getByTestId('assistant-turn').count();
    await page.getByLabel(/^Message/).fill('And this one?');
    await page.getByLabel(/^Attachment URLs/).fill('http://files.example.com/tool.exe');
    await page.getByRole('button', { name: 'Send' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Error 422 \(validation_error\)/);
    expect(await page.getByTestId('assistant-turn').count()).toBe(turns);
    expect(await settledViolations(page)).toEqual([]);
  });

  it('keeps threads apart: a new thread starts empty, and the first one shows its turns again', async () => {
    const select = page.getByTestId('thread-select');
    const first = await select.inputValue();
    await page.getByRole('button', { name: 'New thread' }).click();
    expect(await select.inputValue()).not.toBe(first);
    expect(await page.getByTestId('assistant-turn').count()).toBe(0);
    stack.fake.setModel(AGENT_MODEL, { response: 'A fresh start.' });
    await page.getByLabel(/^Message/).fill('Hello again');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByTestId('assistant-turn').and(page.locator('[aria-busy="false"]')).waitFor();
    // The agent service resumed nothing: the model saw only this thread's message.
    const request = await stack.fake.waitForRequest((record) => record.lastUserText === 'Hello again');
    expect(JSON.stringify(request.body)).not.toContain('Count to eight');

    await select.selectOption(first);
    expect(await page.getByTestId('user-turn').allTextContents()).toEqual([
      expect.stringContaining('Count to eight'),
      expect.stringContaining('When do you open?'),
    ]);
  });

  it('stops an answer mid-stream: the turn keeps what came, and the run is recorded cancelled', async () => {
    stack.fake.setModel(AGENT_MODEL, { response: ANSWER });
    const gate = stack.fake.gate(AGENT_MODEL, HELD_AFTER);
    await page.getByLabel(/^Message/).fill('Count once more');
    await page.getByRole('button', { name: 'Send' }).click();
    await gate.reached;
    const turn = page.getByTestId('assistant-turn').last();
    const partial = ANSWER.split(' ').slice(0, HELD_AFTER).join(' ');
    await expectEventually(async () => expect((await turn.getByTestId('assistant-text').textContent())?.trim()).toBe(partial));
    await page.getByRole('button', { name: 'Stop' }).click();
    await turn.and(page.locator('[aria-busy="false"]')).waitFor();
    expect(await page.getByTestId('chat-announcement').textContent()).toBe('Stopped.');
    expect((await turn.getByTestId('assistant-text').textContent())?.trim()).toBe(partial);
    await expectEventually(async () => {
      const newest = await stack.api('GET', '/v1/private/requests?limit=1');
      expect(newest.body.requests[0]).toEqual(expect.objectContaining({ request_type: 'agent', status: 'cancelled' }));
    });
    gate.release();
  });

  it('creates a knowledge base, uploads a file into it and follows its ingestion until completed', async () => {
    // Opened by URL: a hovered active navigation link is below AA contrast (the layout's, reported).
    await page.goto(`${stack.gateway}/console/knowledge`);
    await page.getByRole('heading', { name: 'Knowledge bases', level: 1 }).waitFor();
    await page.getByText('0 knowledge base(s), oldest first').waitFor();
    expect(await settledViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'New knowledge base' }).click();
    const form = page.getByRole('form', { name: 'New knowledge base' });
    await form.getByLabel(/^Name/).fill('Handbook');
    await form.getByLabel(/^Default score threshold/).fill('0');
    await form.getByRole('button', { name: 'Create knowledge base' }).click();
    await page.waitForURL(/\/console\/knowledge\/[0-9a-f-]{36}$/);
    knowledgeBaseId = page.url().split('/').pop() ?? '';
    await page.getByRole('heading', { name: 'Handbook', level: 1 }).waitFor();

    const upload = page.getByRole('form', { name: 'Upload and add' });
    await upload.locator('input[type="file"]').setInputFiles(join(files, 'refund-policy.md'));
    await upload.getByRole('button', { name: 'Upload and add' }).click();
    await upload.getByText('Uploaded refund-policy.md.').waitFor();
    // The page reads the items again while one is pending, and stops once none is.
    await page.locator('[data-testid="item-row"][data-status="completed"]').waitFor({ timeout: INGESTION_TIMEOUT_MS });
    await page.getByText('Every item of this page is ingested.').waitFor();
    const row = page.getByTestId('item-row');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('refund-policy.md');
    expect(await settledViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('knowledge-items'), fullPage: true });
  });

  it('searches the knowledge base and shows each chunk with its lexical, vector and fused scores', async () => {
    await page.getByRole('tab', { name: 'Search' }).click();
    const form = page.getByRole('form', { name: 'Search the knowledge base' });
    await form.getByLabel(/^Query/).fill('refund code word');
    expect(await form.getByLabel('Search type').inputValue()).toBe('hybrid');
    await form.getByLabel('Score threshold').fill('0');
    await form.getByRole('button', { name: 'Search' }).click();
    const chunk = page.getByTestId('search-chunk').first();
    await chunk.waitFor();
    expect(await chunk.textContent()).toContain('PELICAN');
    for (const score of ['score-lexical', 'score-vector', 'score-fused'])
      expect(await chunk.getByTestId(score).textContent()).toMatch(/^(0|1)\.\d{4}$/);
    expect(await settledViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('knowledge-search'), fullPage: true });

    // A one-sided search fuses nothing.
    await form.getByLabel('Search type').selectOption('full_text');
    await form.getByRole('button', { name: 'Search' }).click();
    await page.getByText('found by full_text search').waitFor();
    expect(await chunk.getByTestId('score-fused').textContent()).toBe('—');
    expect(await chunk.getByTestId('score-vector').textContent()).toBe('—');
  });

  it('attaches the knowledge base to the agent and shows the tool loop inline in the chat', async () => {
    await page.goto(`${stack.gateway}/console/agents/${agentId}`);
    await page.getByRole('tab', { name: 'Knowledge bases' }).click();
    await page.getByRole('checkbox', { name: 'Handbook' }).check();
    await page.getByRole('button', { name: 'Save knowledge bases' }).click();
    await page.getByText('Saved: the agent searches 1 knowledge base(s).').waitFor();
    expect((await stack.api('GET', `/v1/private/agents/${agentId}/knowledge_bases`)).body.knowledge_bases.knowledge_base_ids).toEqual([
      knowledgeBaseId,
    ]);

    stack.fake.setModel(AGENT_MODEL, {
      turns: [
        { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'refund code word' } }] },
        { response: 'Say PELICAN within 14 days.' },
      ],
    });
    await page.getByRole('tab', { name: 'Chat' }).click();
    await page.getByLabel(/^Message/).fill('How do I ask for a refund?');
    await page.getByRole('button', { name: 'Send' }).click();
    const turn = page.getByTestId('assistant-turn').last();
    await turn.and(page.locator('[aria-busy="false"]')).waitFor();
    const tool = turn.getByTestId('tool-call');
    expect(await tool.count()).toBe(1);
    expect(await tool.textContent()).toContain('knowledge_search');
    expect(JSON.parse((await tool.getByTestId('tool-input').textContent()) ?? '')).toEqual({ query: 'refund code word' });
    expect(await tool.getByTestId('tool-observation').textContent()).toContain('PELICAN');
    // The call comes before the answer that used it.
    const parts = await turn.locator('[data-testid="tool-call"], [data-testid="assistant-text"]').all();
    const order = await Promise.all(parts.map((part) => part.getAttribute('data-testid')));
    expect(order).toEqual(['tool-call', 'assistant-text']);
    expect(await turn.getByTestId('assistant-text').textContent()).toBe('Say PELICAN within 14 days.');
    await tool.getByText('Observation').click();
    expect(await settledViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('agent-chat'), fullPage: true });

    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Send' }).waitFor();
    expect(await settledViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('agent-chat-phone'), fullPage: true });
    await page.setViewportSize(DESKTOP);
  });

  it('lists the uploaded document among the assets, and uploads another', async () => {
    await page.goto(`${stack.gateway}/console/knowledge`);
    const assets = page.getByTestId('asset-row');
    await assets.first().waitFor();
    expect(await assets.allTextContents()).toEqual([expect.stringContaining('refund-policy.md')]);

    const upload = page.getByRole('form', { name: 'Upload asset' });
    await upload.locator('input[type="file"]').setInputFiles(join(files, 'price-list.txt'));
    await upload.getByRole('button', { name: 'Upload asset' }).click();
    await upload.getByText('Uploaded price-list.txt.').waitFor();
    await expectEventually(async () => expect(await assets.count()).toBe(2));
    // Newest first, with its detected type and size.
    expect(await assets.first().textContent()).toMatch(/^price-list\.txttext\/plain23 B/);
    expect(await settledViolations(page)).toEqual([]);
    await page.getByRole('heading', { name: 'Assets' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshot('assets'), fullPage: true });
  });

  it('pages the assets through the API: Older assets shows the next page, Newer assets goes back', async () => {
    // 19 more through the API: 21 in all, one more than the table's page of 20.
    for (let index = 0; index < 19; index++) {
      const form = new FormData();
      form.append('file', new Blob([`note ${index}`], { type: 'text/plain' }), `note-${String(index).padStart(2, '0')}.txt`);
      const answer = await fetch(`${stack.gateway}/v1/public/workspaces/${stack.workspaceId}/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.key}` },
        body: form,
      });
      expect(answer.status).toBe(200);
    }
    await page.goto(`${stack.gateway}/console/knowledge`);
    const assets = page.getByTestId('asset-row');
    await page.getByText('20 asset(s) on page 1, newest first').waitFor();
    expect(await assets.first().textContent()).toMatch(/^note-18\.txt/);
    const pages = page.getByRole('navigation', { name: 'Pages of assets' });
    expect(await pages.getByRole('button', { name: 'Newer assets' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Older assets' }).click();
    await page.getByText('1 asset(s) on page 2, newest first').waitFor();
    expect(await assets.allTextContents()).toEqual([expect.stringContaining('refund-policy.md')]);
    expect(await pages.getByRole('button', { name: 'Older assets' }).isDisabled()).toBe(true);
    await pages.getByRole('button', { name: 'Newer assets' }).click();
    await page.getByText('20 asset(s) on page 1, newest first').waitFor();
    expect(await assets.first().textContent()).toMatch(/^note-18\.txt/);
  });

  it('deletes the agent and the knowledge base after a confirmation in a modal', async () => {
    await page.goto(`${stack.gateway}/console/agents`);
    const row = page.getByTestId('agent-row');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('Front desk');
    await page.screenshot({ path: screenshot('agents'), fullPage: true });

    await page.getByRole('button', { name: 'Delete agent Support' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete agent Support?' });
    await dialog.waitFor();
    expect(await settledViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('0 agent(s), oldest first').waitFor();
    expect((await stack.api('GET', `/v1/public/workspaces/${stack.workspaceId}/agents/${agentId}`)).status).toBe(422);

    await page.goto(`${stack.gateway}/console/knowledge`);
    await page.getByRole('button', { name: 'Delete knowledge base Handbook' }).click();
    await page.getByRole('dialog', { name: 'Delete knowledge base Handbook?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('0 knowledge base(s), oldest first').waitFor();

    // Only the 422 the first test provoked on purpose.
    expect(stack.pageErrors.filter((message) => !/status of 422/.test(message))).toEqual([]);
  });
});
