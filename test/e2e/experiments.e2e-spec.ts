import type {
  CancelledRun,
  DatasetRowView,
  DatasetRowsPageView,
  DatasetView,
  ExperimentCellsPage,
  ExperimentCellView,
  ExperimentRunView,
} from '@waggle/contracts';
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  waitUntilLive,
  type AppProcess,
} from '@waggle/testing';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

interface Workspace {
  id: string;
  key: string;
}

const REQUEST_ID = /^req_[0-9a-f]{32}$/;
/** The cell cap the invocation service runs with here, so the limit is reachable with a small dataset. */
const CELL_LIMIT = 12;

const DEFINITIONS = `
prompts:
  - deployment: capitals
    variants:
      - name: base
        model: fake-exp-echo
        messages: [ { role: user, content: "{{ city }}" } ]
      - name: held
        model: fake-exp-held
        messages: [ { role: user, content: "held {{ city }}" } ]
`;

/**
 * Experiment runs over HTTP (the spec's decisions on experiments and releases: experiment runs,
 * results), as a client calls them: two invocation replicas running cells from the durable queue
 * against the fake provider, the gateway, PostgreSQL, Redis and NATS. The fake echoes the last
 * user message (`Echo: <text>`), so each cell's output, and so its verdict, is known in advance.
 */
describe('experiment runs: /v1/private/experiment_runs', () => {
  const fake = new FakeProviderServer({});
  const apps: AppProcess[] = [];
  let gateway: string;
  let main: Workspace;
  let other: Workspace;
  let dataset: DatasetView;
  let rows: DatasetRowView[];

  const call = async <T = Record<string, unknown>>(who: Workspace, method: string, path: string, body?: unknown): Promise<Answer<T>> => {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${who.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, headers: response.headers, text, body: parsed as T };
  };
  const createRun = (who: Workspace, body: unknown) => call<ExperimentRunView>(who, 'POST', '/v1/private/experiment_runs', body);
  const getRun = (who: Workspace, id: string) => call<ExperimentRunView>(who, 'GET', `/v1/private/experiment_runs/${id}`);
  const ended = (who: Workspace, id: string) =>
    expectEventually(
      async () => {
        const run = await getRun(who, id);
        expect(['completed', 'cancelled', 'failed']).toContain(run.body.status);
        return run.body;
      },
      { timeoutMs: 60_000 },
    );
  const allCells = async (who: Workspace, id: string): Promise<ExperimentCellView[]> => {
    const page = await call<ExperimentCellsPage>(who, 'GET', `/v1/private/experiment_runs/${id}/cells?limit=1000`);
    expect(page.status).toBe(200);
    return page.body.cells;
  };

  async function workspace(name: string): Promise<Workspace> {
    const created = await cliJson<{ workspace_id: string; api_key: string }>([
      'workspace',
      'create',
      '--name',
      name,
      '--plan',
      'enterprise',
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'waggle-experiments-')), 'definitions.yaml');
    writeFileSync(file, DEFINITIONS);
    await cliJson(['apply', '-f', file, '--workspace', created.workspace_id]);
    return { id: created.workspace_id, key: created.api_key };
  }

  async function datasetOf(who: Workspace, name: string, cities: string[]): Promise<{ dataset: DatasetView; rows: DatasetRowView[] }> {
    const created = await call<DatasetView>(who, 'POST', '/v1/private/datasets', { name });
    expect(created.status).toBe(201);
    const version = await call(who, 'POST', `/v1/private/datasets/${created.body.id}/versions`, {
      rows: cities.map((city) => ({ inputs: { city }, expected_output: city })),
    });
    expect(version.status).toBe(201);
    const page = await call<DatasetRowsPageView>(who, 'GET', `/v1/private/datasets/${created.body.id}/versions/1/rows?limit=1000`);
    return { dataset: created.body, rows: page.body.rows };
  }

  /** The body of a run over the main dataset: the deployed `base` and an inline candidate that answers Madrid for Rome. */
  const twoCandidates = (extra: Record<string, unknown> = {}) => ({
    name: 'capitals check',
    dataset: dataset.id,
    dataset_version: 1,
    candidates: [
      { name: 'base', deployment: 'capitals', variant: 'base' },
      {
        name: 'next',
        inline: {
          model: 'fake-exp-echo',
          messages: [{ role: 'user', content: "{% if city == 'Rome' %}Madrid{% else %}{{ city }}{% endif %}" }],
        },
      },
    ],
    evaluators: [{ type: 'contains' }, { type: 'max_latency_ms', value: 600_000 }],
    baseline: 'base',
    min_pass_rate: 0.5,
    ...extra,
  });

  beforeAll(async () => {
    const fakeUrl = await fake.start();
    const env = { LOG_LEVEL: 'warn', FAKE_BASE_URL: `${fakeUrl}/v1`, FAKE_API_KEY: 'fake-key', PROVIDER_MAX_RETRIES: '0' };
    const invocationEnv = { ...env, EXPERIMENT_CELL_LIMIT: String(CELL_LIMIT) };
    const gatewayApp = spawnApp('gateway', await freePort(), env);
    apps.push(
      spawnApp('catalog', await freePort(), env),
      spawnApp('invocation', await freePort(), invocationEnv),
      spawnApp('invocation', await freePort(), invocationEnv),
      gatewayApp,
    );
    await Promise.all(apps.map((app) => waitUntilLive(app)));
    gateway = gatewayApp.baseUrl;
    await loadCatalogWithFakeModels('2099.12.01', [
      fakeModel('fake-exp-echo', { reasoning: false }),
      fakeModel('fake-exp-held', { reasoning: false }),
      fakeModel('fake-exp-old', { reasoning: false, status: 'deprecated' }),
    ]);
    main = await workspace('e2e experiments');
    other = await workspace('e2e experiments other');
    ({ dataset, rows } = await datasetOf(main, 'capitals', ['Paris', 'Rome', 'Oslo']));
  });

  afterAll(async () => {
    await cliJson(['catalog', 'load', '--force']);
    await Promise.all(apps.map((app) => app.stop()));
    await fake.stop();
  });

  it('runs a deployed and an inline candidate over a dataset to completed: summary, deltas and the rows that regressed', async () => {
    const created = await createRun(main, twoCandidates());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(REQUEST_ID),
      name: 'capitals check',
      dataset_id: dataset.id,
      dataset_version: 1,
      baseline: 'base',
      min_pass_rate: 0.5,
      counts: { cells: 6 },
      error: null,
      finished_at: null,
    });
    expect(['queued', 'running', 'completed']).toContain(created.body.status);
    expect(created.body.candidates).toEqual([
      {
        name: 'base',
        active: true,
        inline: false,
        deployment: 'capitals',
        variant: 'base',
        label: null,
        version: 1,
        version_id: expect.any(String),
        model: 'fake-exp-echo',
      },
      {
        name: 'next',
        active: true,
        inline: true,
        deployment: null,
        variant: null,
        label: null,
        version: null,
        version_id: null,
        model: 'fake-exp-echo',
      },
    ]);

    const run = await ended(main, created.body.id);
    expect(run.status).toBe('completed');
    expect(run.counts).toEqual({ cells: 6, pending: 0, succeeded: 6, errored: 0 });
    expect(run.started_at).toEqual(expect.any(String));
    expect(run.finished_at).toEqual(expect.any(String));
    const [base, next] = run.summary;
    expect(base).toMatchObject({
      candidate: 'base',
      rows: 3,
      passed: 3,
      errors: 0,
      pass_rate: 1,
      met_threshold: true,
      mean_scores: { contains: 1, max_latency_ms: 1 },
      latency_ms: { p50: expect.any(Number), p95: expect.any(Number) },
    });
    expect(base.tokens.total).toBeGreaterThan(0);
    expect(base.cost_micros).toBeGreaterThan(0);
    expect(base).not.toHaveProperty('vs_baseline');
    const rome = rows.find((row) => row.inputs.city === 'Rome') as DatasetRowView;
    expect(next).toMatchObject({
      candidate: 'next',
      rows: 3,
      passed: 2,
      errors: 0,
      pass_rate: 0.666667,
      met_threshold: true,
      mean_scores: { contains: 0.666667, max_latency_ms: 1 },
      vs_baseline: {
        baseline: 'base',
        pass_rate_delta: -0.333333,
        mean_score_deltas: { contains: -0.333333, max_latency_ms: 0 },
        regressed_rows: [rome.id],
      },
    });

    // The cells, in row order then candidate order; each its own prompt run in the ledger, tagged with the run.
    const cells = await allCells(main, run.id);
    expect(cells.map((cell) => [cell.row_id, cell.candidate, cell.output, cell.passed])).toEqual([
      [rows[0].id, 'base', 'Echo: Paris', true],
      [rows[0].id, 'next', 'Echo: Paris', true],
      [rows[1].id, 'base', 'Echo: Rome', true],
      [rows[1].id, 'next', 'Echo: Madrid', false],
      [rows[2].id, 'base', 'Echo: Oslo', true],
      [rows[2].id, 'next', 'Echo: Oslo', true],
    ]);
    expect(cells[3]).toMatchObject({
      status: 'succeeded',
      error: null,
      request_id: expect.stringMatching(REQUEST_ID),
      latency_ms: expect.any(Number),
      cost_micros: expect.any(Number),
      evaluations: [
        { evaluator: 'contains', type: 'contains', score: 0, passed: false, reason: expect.any(String) },
        { evaluator: 'max_latency_ms', type: 'max_latency_ms', score: 1, passed: true, reason: expect.any(String) },
      ],
    });
    for (const cell of cells) {
      await expectEventually(async () => {
        const record = await call(main, 'GET', `/v1/public/requests/${cell.request_id}`);
        expect(record.status).toBe(200);
        expect(record.body).toMatchObject({ status: 'completed', metadata: { experiment_run_id: run.id } });
      });
    }

    // The list, newest first, holds it with its stored summary.
    const listed = await call<{ experiment_runs: ExperimentRunView[] }>(main, 'GET', '/v1/private/experiment_runs?limit=50');
    expect(listed.status).toBe(200);
    expect(listed.body.experiment_runs.find((listedRun) => listedRun.id === run.id)).toEqual(run);
  });

  it('pages the cells with filters, and exports every cell as CSV and JSONL', async () => {
    const created = await createRun(main, twoCandidates({ name: 'export' }));
    const run = await ended(main, created.body.id);
    const all = await allCells(main, run.id);

    const first = await call<ExperimentCellsPage>(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?limit=4`);
    expect(first.body).toMatchObject({ total: 6, next_offset: 4 });
    expect(first.body.cells).toEqual(all.slice(0, 4));
    const second = await call<ExperimentCellsPage>(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?limit=4&offset=4`);
    expect(second.body).toEqual({ cells: all.slice(4), total: 6, next_offset: null });
    const next = await call<ExperimentCellsPage>(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?candidate=next`);
    expect(next.body.cells.map((cell) => cell.candidate)).toEqual(['next', 'next', 'next']);
    const errored = await call<ExperimentCellsPage>(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?status=errored`);
    expect(errored.body).toEqual({ cells: [], total: 0, next_offset: null });
    for (const bad of ['limit=0', 'limit=1001', 'offset=-1', 'status=done', 'format=xml', 'candidate=%20']) {
      const refused = await call(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?${bad}`);
      expect({ bad, status: refused.status, code: refused.body.error_code }).toEqual({ bad, status: 422, code: 'validation_error' });
    }

    const csv = await call(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="experiment-run-${run.id}-cells.csv"`);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('row_id,candidate,status,passed,latency_ms,cost_micros,output,error_code,score:contains,score:max_latency_ms');
    expect(lines.slice(1)).toEqual(
      all.map(
        (cell) =>
          `${cell.row_id},${cell.candidate},succeeded,${cell.passed},${cell.latency_ms},${cell.cost_micros},${cell.output as string},,${cell.passed ? 1 : 0},1`,
      ),
    );

    const jsonl = await call(main, 'GET', `/v1/private/experiment_runs/${run.id}/cells?format=jsonl`);
    expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(jsonl.headers.get('content-disposition')).toBe(`attachment; filename="experiment-run-${run.id}-cells.jsonl"`);
    expect(
      jsonl.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as ExperimentCellView),
    ).toEqual(all);
  });

  it('refuses a workflow or agent candidate with experiment_candidate_type_unsupported', async () => {
    for (const candidate of [
      { name: 'flow', workflow: 'three-steps' },
      { name: 'helper', agent: 'some-agent' },
      { name: 'typed', type: 'agent', deployment: 'capitals', variant: 'base' },
    ]) {
      const refused = await createRun(
        main,
        twoCandidates({ candidates: [{ name: 'base', deployment: 'capitals', variant: 'base' }, candidate] }),
      );
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        error_code: 'experiment_candidate_type_unsupported',
        code: 'experiment_candidate_type_unsupported',
      });
      expect((refused.body as unknown as { message: string }).message).toContain(candidate.name);
    }
  });

  it('refuses active candidates that cannot run with experiment_run_unsupported_candidates, naming each and why', async () => {
    // One row: six active candidates stay under the cell cap.
    const single = await datasetOf(main, 'single', ['Paris']);
    const refused = await createRun(
      main,
      twoCandidates({
        dataset: single.dataset.id,
        baseline: undefined,
        candidates: [
          { name: 'base', deployment: 'capitals', variant: 'base' },
          { name: 'gone', deployment: 'capitals', variant: 'base', version: 9 },
          { name: 'nowhere', deployment: 'capitals', variant: 'missing' },
          { name: 'old', inline: { model: 'fake-exp-old', messages: [{ role: 'user', content: '{{ city }}' }] } },
          { name: 'unknown-model', inline: { model: 'no-such-model', messages: [{ role: 'user', content: '{{ city }}' }] } },
          { name: 'needs', inline: { model: 'fake-exp-echo', messages: [{ role: 'user', content: '{{ city }} {{ country }}' }] } },
          // Inactive: kept in the run, never checked.
          { name: 'parked', active: false, inline: { model: 'fake-exp-old', messages: [{ role: 'user', content: '{{ city }}' }] } },
        ],
      }),
    );
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error_code: 'experiment_run_unsupported_candidates' });
    const details = (refused.body as unknown as { details: Array<{ candidate: string; code: string; message: string }> }).details;
    expect(details.map((detail) => [detail.candidate, detail.code])).toEqual([
      ['gone', 'resource_not_found'],
      ['nowhere', 'resource_not_found'],
      ['old', 'model_deprecated'],
      ['unknown-model', expect.stringMatching(/^model_/)],
      ['needs', 'validation_error'],
    ]);
    expect(details[4].message).toContain('country');
    // Nothing was written.
    const listed = await call<{ experiment_runs: ExperimentRunView[] }>(main, 'GET', '/v1/private/experiment_runs?limit=1000');
    expect(listed.body.experiment_runs.filter((run) => run.candidates.some((candidate) => candidate.name === 'gone'))).toEqual([]);
  });

  it('refuses a run over the cell cap with experiment_run_result_limit_exceeded before anything is written', async () => {
    const cities = Array.from({ length: CELL_LIMIT / 2 + 1 }, (_, index) => `City ${index}`);
    const big = await datasetOf(main, 'big', cities);
    const before = await call<{ experiment_runs: ExperimentRunView[] }>(main, 'GET', '/v1/private/experiment_runs?limit=1000');
    const refused = await createRun(main, twoCandidates({ dataset: big.dataset.id }));
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error_code: 'experiment_run_result_limit_exceeded',
      message: `The run would have ${(CELL_LIMIT / 2 + 1) * 2} cells (rows × active candidates); the limit is ${CELL_LIMIT}`,
    });
    // One active candidate fits.
    const fits = await createRun(
      main,
      twoCandidates({
        dataset: big.dataset.id,
        baseline: undefined,
        candidates: [
          { name: 'base', deployment: 'capitals', variant: 'base' },
          { name: 'off', deployment: 'capitals', variant: 'base', active: false },
        ],
      }),
    );
    expect(fits.status).toBe(201);
    expect(fits.body.counts.cells).toBe(CELL_LIMIT / 2 + 1);
    const after = await call<{ experiment_runs: ExperimentRunView[] }>(main, 'GET', '/v1/private/experiment_runs?limit=1000');
    expect(after.body.experiment_runs.length).toBe(before.body.experiment_runs.length + 1);
    await ended(main, fits.body.id);
  });

  it('answers 404 for an unknown dataset or version, and 422 for a body the contract refuses', async () => {
    for (const body of [
      twoCandidates({ dataset: '00000000-0000-4000-8000-000000000000' }),
      twoCandidates({ dataset: 'not-a-uuid' }),
      twoCandidates({ dataset_version: 7 }),
    ]) {
      const refused = await createRun(main, body);
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({ error_code: 'resource_not_found' });
    }
    for (const body of [
      twoCandidates({ baseline: 'nobody' }),
      twoCandidates({ min_pass_rate: 1.5 }),
      twoCandidates({ candidates: [] }),
      twoCandidates({
        candidates: [
          { name: 'a', deployment: 'capitals', variant: 'base' },
          { name: 'a', deployment: 'capitals', variant: 'base' },
        ],
      }),
      twoCandidates({ candidates: [{ name: 'both', deployment: 'capitals', variant: 'base', version: 1, label: 'latest' }] }),
      twoCandidates({ candidates: [{ name: 'half', deployment: 'capitals' }] }),
      twoCandidates({ candidates: [{ name: 'off', deployment: 'capitals', variant: 'base', active: false }] }),
      twoCandidates({ evaluators: [{ type: 'no-such-evaluator' }] }),
    ]) {
      const refused = await call(main, 'POST', '/v1/private/experiment_runs', body);
      expect({ body, status: refused.status, code: refused.body.error_code }).toEqual({ body, status: 422, code: 'validation_error' });
    }
  });

  it('is cancelled mid-run with POST /v1/public/requests/{id}/cancel: pending cells errored run_cancelled, running prompt runs aborted', async () => {
    const release = fake.hold('fake-exp-held');
    try {
      const created = await createRun(
        main,
        twoCandidates({ name: 'held', baseline: undefined, candidates: [{ name: 'held', deployment: 'capitals', variant: 'held' }] }),
      );
      expect(created.status).toBe(201);
      // A cell's prompt run is at the provider, held there: the run is running.
      await fake.waitForRequest((request) => JSON.stringify(request.body).includes('held '));
      await expectEventually(async () => expect((await getRun(main, created.body.id)).body.status).toBe('running'));

      // Another workspace cannot see or cancel it.
      expect((await call(other, 'POST', `/v1/public/requests/${created.body.id}/cancel`)).status).toBe(404);

      const cancelled = await call<CancelledRun>(main, 'POST', `/v1/public/requests/${created.body.id}/cancel`);
      expect(cancelled).toMatchObject({ status: 200, body: { request_id: created.body.id, run_status: 'cancelled' } });
      const run = await getRun(main, created.body.id);
      expect(run.body).toMatchObject({ status: 'cancelled', counts: { cells: 3, pending: 0, succeeded: 0, errored: 3 } });
      const cells = await allCells(main, created.body.id);
      expect(cells.map((cell) => [cell.status, cell.error?.code])).toEqual([
        ['errored', 'run_cancelled'],
        ['errored', 'run_cancelled'],
        ['errored', 'run_cancelled'],
      ]);
      // Every prompt run that reached the provider was aborted there.
      await expectEventually(() => {
        const held = fake.requests.filter((request) => JSON.stringify(request.body).includes('held '));
        expect(held.length).toBeGreaterThan(0);
        expect(held.every((request) => request.aborted)).toBe(true);
      });
      // Cancelling again answers the run as it is.
      expect((await call(main, 'POST', `/v1/public/requests/${created.body.id}/cancel`)).body).toEqual({
        request_id: created.body.id,
        run_status: 'cancelled',
      });
    } finally {
      release();
    }
  });

  it('is a CI gate from the CLI: run -f --wait prints each candidate and exits 65 when a candidate misses min_pass_rate', async () => {
    const cli = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, ['dist/tools/cli/src/main.js', ...args], {
          cwd: process.cwd(),
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    const directory = mkdtempSync(join(tmpdir(), 'waggle-experiment-cli-'));
    const file = (name: string, minPassRate: number) => {
      const path = join(directory, name);
      // The dataset by its name, as a pipeline's file names it.
      writeFileSync(path, stringify({ ...twoCandidates({ name, min_pass_rate: minPassRate }), dataset: 'capitals' }));
      return path;
    };

    const passing = await cli(['experiment', 'run', '-f', file('passing.yaml', 0.5), '--wait', '--workspace', main.id]);
    expect(passing.code).toBe(0);
    expect(passing.stdout).toMatch(/candidate\s+pass_rate\s+passed\s+errors\s+p50\/p95_ms\s+cost\s+vs_baseline\s+threshold/);
    expect(passing.stdout).toMatch(/next\s+66\.7%\s+2\/3\s+0\s+.*-33\.3% pass, 1 regressed\s+met/);
    expect(passing.stderr).toContain('completed: 6/6 cells');

    const missing = await cli(['experiment', 'run', '-f', file('strict.yaml', 1), '--wait', '--workspace', main.id, '--json']);
    expect(missing.code).toBe(65);
    const strict = JSON.parse(missing.stdout) as ExperimentRunView;
    expect(strict).toMatchObject({ status: 'completed', min_pass_rate: 1 });
    expect(missing.stderr).toContain('error: below min_pass_rate 1: next');

    const listed = await cliJson<ExperimentRunView[]>(['experiment', 'list', '--workspace', main.id, '--limit', '1']);
    expect(listed.map((run) => run.id)).toEqual([strict.id]);
    expect(await cliJson<ExperimentRunView>(['experiment', 'show', strict.id, '--workspace', main.id])).toEqual(strict);
    const page = await cliJson<ExperimentCellsPage>([
      'experiment',
      'cells',
      strict.id,
      '--workspace',
      main.id,
      '--candidate',
      'next',
      '--limit',
      '2',
    ]);
    expect(page).toMatchObject({ total: 3, next_offset: 2 });
    expect(await cliJson(['experiment', 'cancel', strict.id, '--workspace', main.id])).toEqual({
      request_id: strict.id,
      run_status: 'completed',
    });
    // Another workspace's run is not found.
    expect((await cli(['experiment', 'show', strict.id, '--workspace', other.id])).code).toBe(1);
  });

  it('gates the promotion of a protected variant on a completed run of that exact version that met the pass rate', async () => {
    const variant = (content: string) => ({
      deployment: 'gated',
      variants: [{ name: 'v', model: 'fake-exp-echo', messages: [{ role: 'user', content }] }],
    });
    const apply = async (content: string) => {
      const applied = await call<{ prompts: Array<{ variants: Array<{ version: number; staged?: boolean }> }> }>(
        main,
        'POST',
        '/v1/private/prompts/apply',
        { prompts: [variant(content)] },
      );
      expect(applied.status).toBe(200);
      return applied.body.prompts[0].variants[0];
    };
    const release = (path: string, method: string, body?: unknown) =>
      call<Record<string, unknown>>(main, method, `/v1/private/prompts/gated/variants/v/${path}`, body);
    expect(await apply('{{ city }}')).toMatchObject({ version: 1 });
    expect((await release('protection', 'PUT', { protected: true, min_pass_rate: 1 })).status).toBe(200);
    // Protected: both changes are staged. Version 2 answers every row; version 3 answers Madrid for Rome.
    expect(await apply('Capital: {{ city }}')).toMatchObject({ version: 2, staged: true });
    expect(await apply("{% if city == 'Rome' %}Madrid{% else %}{{ city }}{% endif %}")).toMatchObject({ version: 3, staged: true });

    const refusedWithoutRun = await release('promote', 'POST', { version: 2 });
    expect(refusedWithoutRun).toMatchObject({ status: 409, body: { error_code: 'release_gate_not_satisfied' } });

    const created = await createRun(main, {
      dataset: dataset.id,
      dataset_version: 1,
      candidates: [
        { name: 'two', deployment: 'gated', variant: 'v', version: 2 },
        { name: 'three', deployment: 'gated', variant: 'v', version: 3 },
      ],
      evaluators: [{ type: 'contains' }],
    });
    expect(created.status).toBe(201);
    const run = await ended(main, created.body.id);
    expect(run.status).toBe('completed');
    expect(run.summary.map(({ candidate, passed, rows }) => ({ candidate, passed, rows }))).toEqual([
      { candidate: 'two', passed: 3, rows: 3 },
      { candidate: 'three', passed: 2, rows: 3 },
    ]);

    // Version 3 ran, but below the pass rate the protection asks for.
    const below = await release('promote', 'POST', { version: 3 });
    expect(below).toMatchObject({ status: 409, body: { error_code: 'release_gate_not_satisfied' } });
    expect(below.body.details).toEqual([
      { field: 'version', messages: ['The best experiment run of version 3 passed 0.666667, below the required 1'] },
    ]);

    const promoted = await release('promote', 'POST', { version: 2, reason: 'every row answered' });
    expect(promoted).toMatchObject({
      status: 200,
      body: { pointer: 'deployed', from: 1, to: 2, override: false, experiment_run_id: created.body.id, reason: 'every row answered' },
    });
    const history = await call<{ history: Array<Record<string, unknown>> }>(main, 'GET', '/v1/private/prompts/gated/variants/v/history');
    expect(history.body.history[0]).toMatchObject({ pointer: 'deployed', to: 2, experiment_run_id: created.body.id });
    const served = await call<{ response: string }>(main, 'POST', '/v1/prompt/invoke', {
      deployment: 'gated',
      variant: 'v',
      inputs: { city: 'Oslo' },
    });
    expect(served.body.response).toBe('Echo: Capital: Oslo');
  });

  it('pages the list newest first with a before cursor; an id of another workspace, or unknown, answers an empty page', async () => {
    const ids: string[] = [];
    for (const name of ['page 1', 'page 2', 'page 3']) {
      const created = await createRun(main, twoCandidates({ name }));
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const list = (who: Workspace, query: string) =>
      call<{ experiment_runs: ExperimentRunView[] }>(who, 'GET', `/v1/private/experiment_runs?${query}`);
    const whole = await list(main, 'limit=1000');
    expect(whole.status).toBe(200);
    const order = whole.body.experiment_runs.map((run) => run.id);
    expect(order.slice(0, 3)).toEqual([...ids].reverse());
    // Two at a time through every run: the same runs in the same order, each once.
    const paged: string[] = [];
    let query = 'limit=2';
    for (;;) {
      const page = await list(main, query);
      expect(page.status).toBe(200);
      expect(page.body.experiment_runs.length).toBeLessThanOrEqual(2);
      if (page.body.experiment_runs.length === 0) break;
      paged.push(...page.body.experiment_runs.map((run) => run.id));
      query = `limit=2&before=${paged[paged.length - 1]}`;
    }
    expect(paged).toEqual(order);
    const afterNewest = await list(main, `limit=1&before=${ids[2]}`);
    expect(afterNewest.body.experiment_runs.map((run) => run.id)).toEqual([ids[1]]);
    expect((await list(main, `before=${order[order.length - 1]}`)).body).toEqual({ experiment_runs: [] });

    // Another workspace's run id, or an unknown one, answers an empty page, both ways.
    const theirs = await datasetOf(other, 'theirs', ['Lima']);
    const theirRun = await createRun(other, twoCandidates({ name: 'theirs', dataset: theirs.dataset.id }));
    expect(theirRun.status).toBe(201);
    expect((await list(other, 'limit=10')).body.experiment_runs.map((run) => run.id)).toEqual([theirRun.body.id]);
    expect(await list(main, `before=${theirRun.body.id}`)).toMatchObject({ status: 200, body: { experiment_runs: [] } });
    expect(await list(other, `before=${ids[2]}`)).toMatchObject({ status: 200, body: { experiment_runs: [] } });
    expect(await list(main, 'before=req_00000000000000000000000000000000')).toMatchObject({ status: 200, body: { experiment_runs: [] } });
    expect(await list(main, 'before=not-a-run')).toMatchObject({ status: 200, body: { experiment_runs: [] } });

    for (const bad of ['before=', `before=${'a'.repeat(129)}`, 'before=a&before=b', 'limit=0']) {
      const refused = await list(main, bad);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ error_code: 'validation_error', code: 'validation_error', message: expect.any(String) });
    }
    for (const id of [...ids, theirRun.body.id]) await ended(id === theirRun.body.id ? other : main, id);
  });

  it("keeps one workspace's runs from another: not listed, not readable, its dataset not usable", async () => {
    const created = await createRun(main, twoCandidates({ name: 'private' }));
    expect(created.status).toBe(201);
    expect((await getRun(other, created.body.id)).status).toBe(404);
    expect((await call(other, 'GET', `/v1/private/experiment_runs/${created.body.id}/cells`)).status).toBe(404);
    expect((await call(other, 'GET', `/v1/private/experiment_runs/${created.body.id}/cells?format=csv`)).status).toBe(404);
    const listed = await call<{ experiment_runs: ExperimentRunView[] }>(other, 'GET', '/v1/private/experiment_runs');
    expect(listed.body.experiment_runs.map((run) => run.id)).not.toContain(created.body.id);
    const borrowed = await createRun(other, twoCandidates());
    expect(borrowed.status).toBe(404);
    expect((await getRun(main, 'req_00000000000000000000000000000000')).status).toBe(404);
    expect((await getRun(main, 'not-an-id')).status).toBe(404);
    await ended(main, created.body.id);
  });
});
