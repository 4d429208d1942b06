import {
  DatasetPatterns,
  ExperimentPatterns,
  InvocationPatterns,
  type AppliedDeployment,
  type ExperimentRunDefinition,
  type ExperimentRunView,
} from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import {
  cliJson,
  expectEventually,
  FakeProviderServer,
  fakeModel,
  freePort,
  loadCatalogWithFakeModels,
  spawnApp,
  startServiceUnderTest,
  waitUntilLive,
  type AppProcess,
  type ServiceUnderTest,
} from '@waggle/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { bootstrap } from '../src/bootstrap';
import { ReleaseEvidence } from '../src/experiments/release-evidence';

const MODEL = 'fake-experiment-int';
/**
 * The key BullMQ counts the queue's jobs with (INCR on every add, even of a job with its own
 * id): a value that is not a number makes Redis refuse every add to `experiment-cells`, and
 * nothing else.
 */
const REFUSING_KEY = 'bull:experiment-cells:id';

/**
 * Experiment runs in the invocation service over its real parts (PostgreSQL, Redis, NATS, the
 * catalog service and the fake provider): a run the queue refuses leaves nothing behind and
 * answers 503 experiment_run_start_failed; completed runs are the release gate's evidence.
 */
describe('experiment runs in the invocation service: a queue that refuses, and the release evidence', () => {
  const fake = new FakeProviderServer();
  const redis = new Redis(process.env.REDIS_URL as string);
  const database = new Client({ connectionString: process.env.DATABASE_URL });
  const workspaceId = randomUUID();
  let catalog: AppProcess;
  let service: ServiceUnderTest;
  let datasetId: string;
  let applied: AppliedDeployment;

  const definition = (value: string, extra: Partial<ExperimentRunDefinition> = {}): ExperimentRunDefinition =>
    ({
      dataset: datasetId,
      dataset_version: 1,
      candidates: [{ name: 'deployed', deployment: 'evidence', variant: 'default' }],
      evaluators: [{ type: 'contains', value }],
      ...extra,
    }) as ExperimentRunDefinition;
  const completed = (id: string) =>
    expectEventually(
      async () => {
        const run = await service.send(ExperimentPatterns.getRun, { workspace_id: workspaceId, run_id: id });
        expect(run.status).toBe('completed');
        return run;
      },
      { timeoutMs: 30_000 },
    );

  beforeAll(async () => {
    await database.connect();
    const fakeUrl = await fake.start();
    catalog = spawnApp('catalog', await freePort(), { LOG_LEVEL: 'warn' });
    await waitUntilLive(catalog);
    await loadCatalogWithFakeModels('2099.12.02', [fakeModel(MODEL, { reasoning: false })]);
    service = await startServiceUnderTest(bootstrap, {
      LOG_LEVEL: 'error',
      FAKE_BASE_URL: `${fakeUrl}/v1`,
      FAKE_API_KEY: 'fake-key',
      PROVIDER_MAX_RETRIES: '0',
    });
    [applied] = await service.send(InvocationPatterns.applyPrompts, {
      workspace_id: workspaceId,
      prompts: [
        { deployment: 'evidence', variants: [{ name: 'default', model: MODEL, messages: [{ role: 'user', content: '{{ city }}' }] }] },
      ],
    });
    const dataset = await service.send(DatasetPatterns.createDataset, { workspace_id: workspaceId, dataset: { name: 'cities' } });
    datasetId = dataset.id;
    await service.send(DatasetPatterns.createVersion, {
      workspace_id: workspaceId,
      dataset_id: datasetId,
      version: { rows: [{ inputs: { city: 'Paris' } }, { inputs: { city: 'Rome' } }] },
    });
  });

  afterAll(async () => {
    await redis.del(REFUSING_KEY);
    await service?.stop();
    await cliJson(['catalog', 'load', '--force']);
    await catalog?.stop();
    await fake.stop();
    await database.end();
    redis.disconnect();
  });

  it('answers 503 experiment_run_start_failed when Redis refuses the jobs, leaving no run and no cell', async () => {
    const before = await service.send(ExperimentPatterns.listRuns, { workspace_id: workspaceId });
    await redis.set(REFUSING_KEY, 'refused');
    let refusal: unknown;
    try {
      await service.send(ExperimentPatterns.createRun, { workspace_id: workspaceId, run: definition('Echo') });
    } catch (error) {
      refusal = error;
    } finally {
      await redis.del(REFUSING_KEY);
    }
    expect(refusal).toBeInstanceOf(WaggleException);
    expect(refusal).toMatchObject({ code: 'experiment_run_start_failed', status: 503 });
    expect(await service.send(ExperimentPatterns.listRuns, { workspace_id: workspaceId })).toEqual(before);
    const cells = await database.query('SELECT count(*)::int AS n FROM invocation.experiment_cells WHERE workspace_id = $1', [workspaceId]);
    expect(cells.rows[0].n).toBe(0);

    // Once Redis takes jobs again, the same run starts and completes.
    const started = await service.send(ExperimentPatterns.createRun, { workspace_id: workspaceId, run: definition('Echo') });
    expect((await completed(started.id)).counts).toEqual({ cells: 2, pending: 0, succeeded: 2, errored: 0 });
  });

  it('gives the release gate the best completed run of an exact version, within the age asked, in its own workspace', async () => {
    const evidence = service.app.get(ReleaseEvidence);
    const versionId = (await service.send(ExperimentPatterns.listRuns, { workspace_id: workspaceId }))[0].candidates[0]
      .version_id as string;
    expect(versionId).toEqual(expect.any(String));
    const since = new Date(Date.now() - 3_600_000);

    const failing: ExperimentRunView = await completed(
      (await service.send(ExperimentPatterns.createRun, { workspace_id: workspaceId, run: definition('nowhere') })).id,
    );
    const halfway: ExperimentRunView = await completed(
      (await service.send(ExperimentPatterns.createRun, { workspace_id: workspaceId, run: definition('Paris') })).id,
    );
    expect(failing.summary[0].pass_rate).toBe(0);
    expect(halfway.summary[0].pass_rate).toBe(0.5);
    const passing: ExperimentRunView = await completed(
      (await service.send(ExperimentPatterns.createRun, { workspace_id: workspaceId, run: definition('Echo') })).id,
    );
    // The first test's run passed too (an older tie): the newest of the best wins.
    expect(await evidence.bestFor(workspaceId, versionId, since)).toEqual({
      experiment_run_id: passing.id,
      pass_rate: 1,
      finished_at: passing.finished_at,
    });
    // Finished before `since`: none.
    expect(await evidence.bestFor(workspaceId, versionId, new Date(Date.now() + 60_000))).toBeNull();
    // Another workspace, another version: none.
    expect(await evidence.bestFor(randomUUID(), versionId, since)).toBeNull();
    expect(await evidence.bestFor(workspaceId, randomUUID(), since)).toBeNull();

    // A run where the version is only an inactive candidate is no evidence for it.
    const inactiveOnly = await completed(
      (
        await service.send(ExperimentPatterns.createRun, {
          workspace_id: workspaceId,
          run: definition('Echo', {
            candidates: [
              { name: 'deployed', deployment: 'evidence', variant: 'default', active: false },
              { name: 'inline', inline: { model: MODEL, messages: [{ role: 'user', content: '{{ city }}' }] } },
            ],
          } as Partial<ExperimentRunDefinition>),
        })
      ).id,
    );
    expect(inactiveOnly.summary.map((summary) => summary.candidate)).toEqual(['inline']);
    expect((await evidence.bestFor(workspaceId, versionId, since))?.experiment_run_id).toBe(passing.id);
    expect(applied.variants[0].version).toBe(1);
  });
});
