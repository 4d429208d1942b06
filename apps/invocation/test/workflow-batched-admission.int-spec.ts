import { InvocationPatterns } from '@waggle/contracts';
import { newRequestId } from '@waggle/platform';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { bootstrap } from '../src/bootstrap';
import type { PinnedWorkflow } from '../src/workflows/deployments/workflow-resolution.cache';
import { WorkflowDeploymentsService } from '../src/workflows/deployments/workflow-deployments.service';
import { WorkflowRunAdmission, type RunToAdmit } from '../src/workflows/runs/workflow-run-admission';
import { WorkflowRunExecutor } from '../src/workflows/runs/workflow-run.executor';
import { WorkflowRunsRepository, type NewWorkflowRun, type RunLease } from '../src/workflows/runs/workflow-runs.repository';
import { stepRecord } from './support/step-records';

/**
 * Batched admission of async workflow runs (issue 39) over PostgreSQL: one statement decides a
 * batch as single admissions would decide it one after the other (the cap, the queue's order,
 * each workspace on its own slots), the cap stays exact when batches and single admissions race,
 * and concurrent admissions through WorkflowRunAdmission do share statements.
 */
describe('invocation service over PostgreSQL: async workflow runs admitted in batches', () => {
  let service: ServiceUnderTest;
  let runs: WorkflowRunsRepository;
  let lease: RunLease;
  let db: DataSource;

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    runs = service.app.get(WorkflowRunsRepository);
    lease = service.app.get(WorkflowRunExecutor).lease();
    db = service.app.get(DataSource);
  });

  afterAll(() => service?.stop());

  /** A workspace with one deployed one-step workflow, resolved as an invoke resolves it. */
  async function workspaceWithWorkflow(): Promise<{ workspaceId: string; workflow: PinnedWorkflow }> {
    const workspaceId = randomUUID();
    await service.send(InvocationPatterns.applyWorkflows, {
      workspace_id: workspaceId,
      workflows: [
        {
          deployment: 'batched',
          variants: [{ name: 'default', output: '{{ only.output }}', steps: [{ id: 'only', type: 'template', text: 'x' }] }],
        },
      ],
    });
    return { workspaceId, workflow: await service.app.get(WorkflowDeploymentsService).resolve(workspaceId, 'batched', 'default') };
  }

  function newRun(workspaceId: string, workflow: PinnedWorkflow, cap: number | null, runAsync = true): NewWorkflowRun {
    return {
      ...workflow,
      id: newRequestId(),
      workspaceId,
      runAsync,
      inputs: {},
      callbackUrl: null,
      metadata: {},
      user: null,
      surface: null,
      creditsExhausted: false,
      concurrencyLimit: cap,
      stepLimit: null,
      toolCallLimit: null,
    };
  }

  async function stored(workspaceId: string): Promise<Array<{ id: string; run_status: string; created_us: string }>> {
    return db.query(
      `SELECT id, run_status, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us FROM invocation.workflow_runs WHERE workspace_id = $1 ORDER BY queue_seq`,
      [workspaceId],
    );
  }

  async function slots(workspaceId: string): Promise<{ running: number; queued: number }> {
    const [row] = (await db.query(`SELECT running, queued FROM invocation.workflow_slots WHERE workspace_id = $1`, [
      workspaceId,
    ])) as Array<{
      running: number;
      queued: number;
    }>;
    return row ?? { running: 0, queued: 0 };
  }

  it('decides a batch as one admission after the other would: running while the cap allows, then queued, in order', async () => {
    const { workspaceId, workflow } = await workspaceWithWorkflow();
    expect((await runs.admit(newRun(workspaceId, workflow, 3), null)).status).toBe('running');

    const batch = Array.from({ length: 5 }, (_, index) => ({ run: newRun(workspaceId, workflow, 3), lease: index === 0 ? lease : null }));
    const admitted = await runs.admitAsyncBatch(batch);
    expect(admitted.map((admission) => admission.status)).toEqual(['running', 'running', 'queued', 'queued', 'queued']);
    // Only a running run admitted with a lease holds it (its first attempt and deadline too).
    const [leased, unleased] = admitted.map((admission) => (admission.status === 'refused' ? null : admission.run));
    expect(leased).toMatchObject({ lease_owner: lease.owner, attempts: 1 });
    expect(leased?.lease_expires_at).not.toBeNull();
    expect(leased?.deadline_at).not.toBeNull();
    expect(unleased).toMatchObject({ lease_owner: null, lease_expires_at: null, attempts: 0 });
    // The queue keeps the batch's order, and the slot counters follow.
    expect((await stored(workspaceId)).slice(1).map((row) => row.id)).toEqual(batch.map(({ run }) => run.id));
    expect(await slots(workspaceId)).toEqual({ running: 3, queued: 3 });

    // While runs wait, a later batch waits behind them, even under a larger cap.
    const later = await runs.admitAsyncBatch([{ run: newRun(workspaceId, workflow, 10), lease: null }]);
    expect(later.map((admission) => admission.status)).toEqual(['queued']);
  });

  it('decides each workspace of a mixed batch on its own slots, under its own cap', async () => {
    const a = await workspaceWithWorkflow();
    const b = await workspaceWithWorkflow();
    const batch = [
      newRun(a.workspaceId, a.workflow, 1),
      newRun(b.workspaceId, b.workflow, 2),
      newRun(a.workspaceId, a.workflow, 1),
      newRun(b.workspaceId, b.workflow, 2),
      newRun(b.workspaceId, b.workflow, 2),
      newRun(a.workspaceId, a.workflow, null),
    ].map((run) => ({ run, lease: null }));
    const admitted = await runs.admitAsyncBatch(batch);
    expect(admitted.map((admission) => admission.status)).toEqual(['running', 'running', 'queued', 'running', 'queued', 'queued']);
    expect(await slots(a.workspaceId)).toEqual({ running: 1, queued: 2 });
    expect(await slots(b.workspaceId)).toEqual({ running: 2, queued: 1 });
  });

  it('keeps the cap exact when batches and single admissions race', async () => {
    const { workspaceId, workflow } = await workspaceWithWorkflow();
    const cap = 7;
    const batches = Array.from({ length: 12 }, () =>
      runs.admitAsyncBatch(Array.from({ length: 5 }, () => ({ run: newRun(workspaceId, workflow, cap), lease: null }))),
    );
    const singles = Array.from({ length: 12 }, (_, index) => runs.admit(newRun(workspaceId, workflow, cap, index % 2 === 0), null));
    const decided = [...(await Promise.all(batches)).flat(), ...(await Promise.all(singles))];
    const running = decided.filter((admission) => admission.status === 'running').length;
    expect(running).toBe(cap);
    const rows = await stored(workspaceId);
    expect(rows.filter((row) => row.run_status === 'running')).toHaveLength(cap);
    expect(await slots(workspaceId)).toEqual({ running: cap, queued: rows.length - cap });
  });

  it('ends runs finished at the same time in shared statements, each once, and frees their slots', async () => {
    const { workspaceId, workflow } = await workspaceWithWorkflow();
    const admitted = await runs.admitAsyncBatch(
      Array.from({ length: 30 }, () => ({ run: newRun(workspaceId, workflow, 20), lease: null })),
    );
    const ids = admitted.map((admission) => (admission.status === 'refused' ? '' : admission.run.id));
    const state = (index: number) => ({
      status: 'completed' as const,
      output: `out ${index}`,
      errorMessage: null,
      errorCode: null,
      stepsExecuted: 1,
      records: [stepRecord(ids[index] as string, 'only', 'only', 'template', { output: `out ${index}` })],
    });
    // The 20 running runs end together; the 10 queued ones are started as slots free up.
    const finished = await Promise.all(ids.slice(0, 20).map((id, index) => runs.finish(id, state(index))));
    expect(finished.map(({ run }) => run?.output_content)).toEqual(ids.slice(0, 20).map((_, index) => `out ${index}`));
    expect(finished.flatMap(({ promoted }) => promoted.map((run) => run.id)).sort()).toEqual(ids.slice(20).sort());
    expect(await slots(workspaceId)).toEqual({ running: 10, queued: 0 });
    const ended = (await db.query(
      `SELECT (extract(epoch FROM ended_at) * 1000000)::bigint::text AS ended_us FROM invocation.workflow_runs WHERE id = ANY($1) AND run_status = 'completed'`,
      [ids.slice(0, 20)],
    )) as Array<{ ended_us: string }>;
    expect(ended).toHaveLength(20);
    // Rows ended by one statement share its transaction's `now()`: twenty finishes, far fewer statements.
    expect(new Set(ended.map((row) => row.ended_us)).size).toBeLessThanOrEqual(6);
    const [{ records }] = (await db.query(`SELECT count(*)::int AS records FROM invocation.workflow_step_runs WHERE run_id = ANY($1)`, [
      ids.slice(0, 20),
    ])) as Array<{ records: number }>;
    expect(records).toBe(20);
    // A run already terminal is left as it is.
    expect((await runs.finish(ids[0] as string, state(0))).run).toBeNull();
  });

  it('admits concurrent async runs through shared statements, each answered with its own row', async () => {
    const { workspaceId, workflow } = await workspaceWithWorkflow();
    const admission = service.app.get(WorkflowRunAdmission);
    const toAdmit = (): RunToAdmit => ({
      requestId: newRequestId(),
      workspaceId,
      workflow,
      inputs: {},
      runAsync: true,
      callbackUrl: null,
      metadata: {},
      user: null,
      surface: null,
      limits: { concurrency: 5, stepsPerRun: null, toolCallsPerDay: null },
    });
    const asked = Array.from({ length: 40 }, toAdmit);
    const admitted = await Promise.all(asked.map((run) => admission.admit(run, false)));
    expect(admitted.map(({ run }) => run.id)).toEqual(asked.map((run) => run.requestId));
    expect(admitted.filter(({ status }) => status === 'running')).toHaveLength(5);
    // Rows written by one statement share its transaction's start time (`created_at`'s default):
    // forty admissions in flight together took far fewer than forty statements.
    const rows = await stored(workspaceId);
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((row) => row.created_us)).size).toBeLessThanOrEqual(10);
  });
});
