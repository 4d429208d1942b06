import { InvocationPatterns } from '@waggle/contracts';
import { newRequestId } from '@waggle/platform';
// Test code is not part of the app: the type:app boundary (no type:testing) is meant for src/.
import { startServiceUnderTest, type ServiceUnderTest } from '@waggle/testing';
import { randomUUID } from 'node:crypto';
import { bootstrap } from '../src/bootstrap';
import { WorkflowDeploymentsService } from '../src/workflows/deployments/workflow-deployments.service';
import { ledgerRecordOf } from '../src/workflows/runs/workflow-run-mappers';
import { WorkflowRunExecutor } from '../src/workflows/runs/workflow-run.executor';
import { WorkflowRunsRepository } from '../src/workflows/runs/workflow-runs.repository';
import { stepRecord } from './support/step-records';

/**
 * A workflow run's cost through its step records in PostgreSQL: each step's record keeps what
 * its calls cost, unrounded (pico-USD), and a run that resumes after a crash adds the costs of
 * the steps it does not execute again (a finished loop's iterations too) to what it executes,
 * so its ledger record's `cost_micros` is the whole run's sum, rounded once.
 */
describe('invocation service over PostgreSQL: a workflow run keeps its cost across a resume', () => {
  const workspaceId = randomUUID();
  let service: ServiceUnderTest;
  let runs: WorkflowRunsRepository;
  let executor: WorkflowRunExecutor;

  beforeAll(async () => {
    service = await startServiceUnderTest(bootstrap, { LOG_LEVEL: 'error' });
    runs = service.app.get(WorkflowRunsRepository);
    executor = service.app.get(WorkflowRunExecutor);
    const loop = (id: string, body: string) => ({
      id,
      type: 'loop',
      over: '{{ items }}',
      max_iterations: 3,
      steps: [{ id: body, type: 'template', text: '{{ item }}' }],
    });
    await service.send(InvocationPatterns.applyWorkflows, {
      workspace_id: workspaceId,
      workflows: [
        {
          deployment: 'costed',
          variants: [
            {
              name: 'default',
              inputs: { items: { type: 'json', required: true } },
              output: '{{ last.output }}',
              steps: [
                { id: 'first', type: 'template', text: 'a' },
                loop('done', 'answer'),
                loop('each', 'ask'),
                { id: 'last', type: 'template', text: 'end' },
              ],
            },
          ],
        },
      ],
    });
  });

  afterAll(() => service?.stop());

  it("adds the recorded costs of the steps a re-run skips (a finished loop's and iteration's too) and rounds the sum once", async () => {
    const workflow = await service.app.get(WorkflowDeploymentsService).resolve(workspaceId, 'costed', 'default');
    const id = newRequestId();
    const admitted = await runs.admit(
      {
        ...workflow,
        id,
        workspaceId,
        runAsync: true,
        inputs: { items: ['x', 'y'] },
        callbackUrl: null,
        metadata: {},
        user: null,
        surface: null,
        creditsExhausted: false,
        concurrencyLimit: null,
        stepLimit: null,
        toolCallLimit: null,
      },
      null,
    );
    expect(admitted.status).toBe('running');
    const lease = [executor.owner, 60_000, 600_000] as const;
    expect((await runs.claim(id, ...lease)).state).toBe('taken');

    // The first attempt: `first` and the whole loop `done` finished, the loop `each` stopped in
    // its second iteration. 2.5 + 1.5 + 1 micro-USD: 5 in all, 6 if each step were rounded.
    await runs.recordSteps([
      stepRecord(id, 'first', 'first', 'prompt', { tokens: 10, cost_picos: 2_500_000, price_version: 'fake-1', credentials: 'hosted' }),
      stepRecord(id, 'done', 'done', 'loop'),
      stepRecord(id, 'done#0', 'done', 'loop_iteration', { iteration: 0, output: { value: 'x' } }),
      stepRecord(id, 'done#0.answer', 'answer', 'prompt', {
        iteration: 0,
        output: 'x',
        tokens: 20,
        cost_picos: 1_500_000,
        price_version: 'fake-2',
        credentials: 'workspace',
      }),
      stepRecord(id, 'done#1', 'done', 'loop_iteration', { iteration: 1, output: { value: 'y' } }),
      stepRecord(id, 'done#1.answer', 'answer', 'template', { iteration: 1, output: 'y' }),
      stepRecord(id, 'each', 'each', 'loop', { status: 'running', ended: false }),
      stepRecord(id, 'each#0', 'each', 'loop_iteration', { iteration: 0, output: { value: 'x' } }),
      stepRecord(id, 'each#0.ask', 'ask', 'prompt', { iteration: 0, status: 'running', ended: false }),
      stepRecord(id, 'each#1', 'each', 'loop_iteration', { iteration: 1, status: 'running', ended: false }),
    ]);
    await runs.endStep({
      runId: id,
      key: 'each#0.ask',
      status: 'completed',
      output: 'x',
      error: null,
      errorCode: null,
      tokens: 30,
      modelCalls: 1,
      cost: { picoUsd: 1_000_000, priceVersion: 'fake-1', credentials: 'hosted' },
    });
    const recorded = new Map((await runs.steps(id)).map((step) => [step.step_key, step]));
    expect(recorded.get('first')).toMatchObject({ cost_picos: 2_500_000, price_version: 'fake-1', credentials: 'hosted' });
    expect(recorded.get('done#0.answer')).toMatchObject({ cost_picos: 1_500_000, price_version: 'fake-2', credentials: 'workspace' });
    expect(recorded.get('each#0.ask')).toMatchObject({ status: 'completed', cost_picos: 1_000_000, credentials: 'hosted' });
    expect(recorded.get('done#1.answer')).toMatchObject({ cost_picos: null, price_version: null, credentials: null });

    // The worker dies; the next attempt takes the run and executes what is left.
    await runs.release(id, executor.owner);
    const taken = await runs.claim(id, ...lease);
    if (taken.state !== 'taken') throw new Error(`the run was not taken again: ${taken.state}`);
    expect(taken.run.attempts).toBe(2);
    const state = await executor.execute(taken.run);
    expect(state).toMatchObject({
      status: 'completed',
      output: 'end',
      totalTokens: 60,
      cost: { cost_micros: 5, price_version: 'fake-1,fake-2', credentials: 'hosted' },
    });
    const { run } = await runs.finish(id, state ?? { status: 'failed', output: null, errorMessage: 'lost', errorCode: null });
    expect(run).toMatchObject({ run_status: 'completed', total_tokens: 60, price_version: 'fake-1,fake-2', credentials: 'hosted' });
    expect(ledgerRecordOf(run as NonNullable<typeof run>)).toMatchObject({
      request_id: id,
      status: 'completed',
      cost_micros: 5,
      price_version: 'fake-1,fake-2',
      credentials: 'hosted',
    });
    // The steps the re-run executed called no model: their records have no cost.
    expect((await runs.steps(id)).find((step) => step.step_key === 'each#1.ask')).toMatchObject({
      status: 'completed',
      cost_picos: null,
      credentials: null,
    });
  });

  it('leaves a run that called no model without cost, price version or credentials', async () => {
    const requestId = newRequestId();
    const answer = await service.send(
      InvocationPatterns.invokeWorkflow,
      {
        workspace_id: workspaceId,
        request_id: requestId,
        deployment: 'costed',
        variant: 'default',
        inputs: { items: ['z'] },
        limits: { concurrency: 5, steps_per_run: 20, tool_calls_per_day: null },
      },
      30_000,
    );
    expect(answer).toMatchObject({ run_status: 'completed', output: 'end' });
    const row = await runs.find(requestId);
    expect(ledgerRecordOf(row as NonNullable<typeof row>)).toMatchObject({ cost_micros: null, price_version: null, credentials: null });
  });
});
