import { InjectQueue } from '@nestjs/bullmq';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  DEADLINE_MARGIN_MS,
  QueueNames,
  WORKFLOW_RUN_FINISHED_SUBJECT,
  type CallbackBody,
  type LedgerRecord,
  type WorkflowInvokeResponse,
  type WorkflowRunFinishedMessage,
  type WorkflowRunRequest,
  type WorkflowRunView,
  type WorkflowStepRecordView,
} from '@waggle/contracts';
import { isErrorCode, isErrorMessageId, WaggleException, type ErrorDetail, type NestedMessage } from '@waggle/errors';
import { APP_ENV, enqueue, isTransientFailure, msUntilDeadline, NatsRpcClient, requestContext, type JobQueue } from '@waggle/platform';
import { CANCELLED_RUN_DATA, LedgerPublisher, RunCancellation, runCancelledError } from '@waggle/runs';
import { deliveryIdFor } from '@waggle/webhooks';
import type { WorkflowInput, WorkflowVariant } from '@waggle/workflows';
import type { Subscription } from 'nats';
import type { InvocationEnv } from '../../config/invocation.env';
import type { ResolvedWorkflow } from '../deployments/workflow-resolution.cache';
import { WorkflowDeploymentsService } from '../deployments/workflow-deployments.service';
import { WorkflowRunExecutor } from './workflow-run.executor';
import {
  CANCELLED_STATE,
  failureState,
  toStepRecordView,
  WorkflowRunsRepository,
  type ActiveStatuses,
  type Admission,
  type TerminalState,
  type WorkflowRunRow,
} from './workflow-runs.repository';

const isTerminal = (row: WorkflowRunRow) => row.run_status === 'completed' || row.run_status === 'failed' || row.run_status === 'cancelled';

/** Checks the caller's inputs against the variant's declared ones: every required one given, each of its type. */
export function checkInputs(definition: WorkflowVariant, inputs: Record<string, unknown>): void {
  const missing = Object.entries(definition.inputs).filter(
    ([name, input]) => input.required && (inputs[name] === undefined || inputs[name] === null),
  );
  if (missing.length > 0) {
    throw new WaggleException('missing_required_field', {
      detail: 'missing_required_inputs',
      params: { fields: missing.map(([name]) => `inputs.${name}`).join(', ') },
      details: missing.map(([name]) => ({ field: `inputs.${name}`, messages: ['is required by the workflow variant'] })),
    });
  }
  const wrong: Array<{ field: string; messages: string[] }> = [];
  for (const [name, input] of Object.entries(definition.inputs) as Array<[string, WorkflowInput]>) {
    const value = inputs[name];
    if (value === undefined || value === null || input.type === 'json') continue;
    const expected = { text: 'string', number: 'number', boolean: 'boolean' }[input.type];
    if (typeof value !== expected) wrong.push({ field: `inputs.${name}`, messages: [`must be a ${input.type} value`] });
  }
  if (wrong.length > 0)
    throw new WaggleException('validation_error', {
      detail: 'invalid_inputs',
      params: { fields: wrong.map((problem) => problem.field).join(', ') },
      details: wrong,
    });
}

/** The run's failure as a client sees it: the failing step's catalog code and message, with the request id. */
export function runFailure(row: WorkflowRunRow): WaggleException {
  const code = isErrorCode(row.error_code) ? row.error_code : 'internal_server_error';
  // Runs stored before `error_detail` (or failed by a refusal with only a catalog text, or with an id this
  // version does not know) replay the English text.
  const text: ErrorDetail =
    row.error_message === null
      ? { detail: 'workflow_run_failed' }
      : {
          detail: 'workflow_step_failed',
          params: { reason: isErrorMessageId(row.error_detail?.detail) ? (row.error_detail as NestedMessage) : row.error_message },
        };
  return new WaggleException(code, { ...text, extra: { request_id: row.id } });
}

export function toRunView(row: WorkflowRunRow): WorkflowRunView {
  return {
    id: row.id,
    token: row.id,
    run_status: row.run_status,
    run_async: row.run_async,
    start_inputs: row.start_inputs,
    output_content: row.output_content,
    error_message: row.error_message,
    started_at: row.started_at?.toISOString() ?? null,
    ended_at: row.ended_at?.toISOString() ?? null,
    duration: row.started_at && row.ended_at ? Math.max(0, row.ended_at.getTime() - row.started_at.getTime()) / 1000 : null,
    total_tokens: row.total_tokens,
    async_webhook_url: row.callback_url,
  };
}

/** The run's request-ledger record in its current state. */
export function ledgerRecordOf(row: WorkflowRunRow): LedgerRecord {
  const ended = row.ended_at?.toISOString() ?? null;
  return {
    request_id: row.id,
    workspace_id: row.workspace_id,
    request_type: 'workflow',
    requestable_type: 'workflow_deployment',
    requestable_id: row.deployment_id,
    deployment: row.deployment_name,
    variant: row.variant_name,
    variant_id: row.variant_id,
    version_id: row.version_id,
    version: row.version,
    model: null,
    status: row.run_status,
    message: null,
    metadata: row.metadata,
    user: row.user_label,
    generated_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    ended_at: ended,
    duration_ms: row.started_at && row.ended_at ? row.ended_at.getTime() - row.started_at.getTime() : null,
    usage: isTerminal(row) ? { total_tokens: row.total_tokens, steps_executed: row.steps_executed } : null,
    data:
      row.run_status === 'completed'
        ? { output: row.output_content }
        : row.run_status === 'failed'
          ? { error: row.error_message, error_code: row.error_code }
          : row.run_status === 'cancelled'
            ? { ...CANCELLED_RUN_DATA }
            : null,
  };
}

export function callbackBodyOf(row: WorkflowRunRow): CallbackBody {
  if (row.run_status === 'completed')
    return { event_type: 'workflow.completed', request_id: row.id, data: { output: row.output_content ?? '' } };
  if (row.run_status === 'cancelled') return { event_type: 'workflow.cancelled', request_id: row.id, data: { ...CANCELLED_RUN_DATA } };
  return {
    event_type: 'workflow.failed',
    request_id: row.id,
    data: { error: row.error_message ?? 'The workflow run failed', error_code: row.error_code ?? 'internal_server_error' },
  };
}

/**
 * Workflow runs from acceptance to announcement: admission under the workspace's concurrency
 * cap (the row is written before anything runs), execution where the run was admitted (or the
 * queue job that executes it elsewhere), the sync caller's answer, and for every terminal move
 * the ledger record, the callback of an async run, the `finished` message of a sync run ended
 * away from its caller, and the start of queued runs that now fit.
 */
@Injectable()
export class WorkflowRunsService implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(WorkflowRunsService.name);
  private readonly waiters = new Map<string, Set<() => void>>();
  /** How many runs execute where they were admitted, and their executions (awaited at shutdown). */
  private localRuns = 0;
  private readonly background = new Set<Promise<unknown>>();
  /** Sync runs executing here: their caller is answered from memory, so their end is not broadcast. */
  private readonly answeredHere = new Set<string>();
  private closing = false;
  private subscription?: Subscription;

  constructor(
    private readonly runs: WorkflowRunsRepository,
    private readonly deployments: WorkflowDeploymentsService,
    private readonly ledger: LedgerPublisher,
    private readonly rpc: NatsRpcClient,
    private readonly executor: WorkflowRunExecutor,
    private readonly cancellation: RunCancellation,
    @Inject(APP_ENV) private readonly env: InvocationEnv,
    @InjectQueue(QueueNames.workflowRuns) private readonly jobs: JobQueue<'workflow-runs'>,
    @InjectQueue(QueueNames.callbacks) private readonly callbacks: JobQueue<'callbacks'>,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.rpc.subscribe<WorkflowRunFinishedMessage>(WORKFLOW_RUN_FINISHED_SUBJECT, (message) =>
      this.wake(message.request_id),
    );
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  async invoke(request: WorkflowRunRequest): Promise<WorkflowInvokeResponse> {
    const workflow = await this.deployments.resolve(request.workspace_id, request.deployment, request.variant);
    const inputs = request.inputs ?? {};
    checkInputs(workflow.definition, inputs);
    const runAsync = request.async?.enabled === true;
    // A sync run always executes here (its caller waits here); an async one when a slot is free.
    const here = !this.closing && (!runAsync || this.localRuns < this.env.WORKFLOW_LOCAL_RUN_CONCURRENCY);
    if (here) this.localRuns += 1;
    let admission: Admission;
    try {
      admission = await this.admit(request, workflow, inputs, runAsync, here);
    } catch (error) {
      if (here) this.localRuns -= 1;
      throw error;
    }
    if (here && admission.status !== 'running') this.localRuns -= 1;
    // decisions: the concurrency-cap 429 carries `error` only.
    if (admission.status === 'refused')
      throw new WaggleException('concurrency_limit_reached', {
        detail: 'workflow_concurrency_reached',
      });
    this.ledger.save(ledgerRecordOf(admission.run));
    if (runAsync) {
      if (admission.status === 'running') {
        if (here) this.track(this.runHere(admission.run));
        else await this.enqueue(admission.run);
      }
      return { request_id: request.request_id, run_status: admission.status, webhook_secret: workflow.webhookSecret() };
    }
    if (!here) {
      // Shutting down: the run goes to the queue, and its end is awaited as announced.
      await this.enqueue(admission.run);
      return this.syncAnswer(request.request_id, Promise.resolve(null));
    }
    // The run goes on when the caller stops waiting (syncAnswer's time-out).
    const execution = this.runHere(admission.run);
    this.track(execution);
    return this.syncAnswer(request.request_id, execution);
  }

  private admit(
    request: WorkflowRunRequest,
    workflow: ResolvedWorkflow,
    inputs: Record<string, unknown>,
    runAsync: boolean,
    here: boolean,
  ): Promise<Admission> {
    return this.runs.admit(
      {
        id: request.request_id,
        workspaceId: request.workspace_id,
        deploymentId: workflow.deploymentId,
        deploymentName: workflow.deploymentName,
        variantId: workflow.variantId,
        variantName: workflow.variantName,
        versionId: workflow.versionId,
        version: workflow.version,
        runAsync,
        inputs,
        callbackUrl: runAsync ? (request.async?.callback_url ?? null) : null,
        metadata: request.metadata ?? {},
        user: request.user ?? null,
        concurrencyLimit: request.limits.concurrency,
        stepLimit: request.limits.steps_per_run,
        toolCallLimit: request.limits.tool_calls_per_day,
      },
      here ? this.executor.lease() : null,
    );
  }

  /**
   * Executes a run this replica admitted and holds the lease of, and settles it: answers the
   * settled row, or null when the run went elsewhere. Its queue job waits a lease long as the
   * safety net (a crash here leaves the run to it; removed once the run is settled). An outage or
   * an unexpected fault hands the run to the queue at once; a refusal fails it.
   */
  private async runHere(run: WorkflowRunRow): Promise<WorkflowRunRow | null> {
    const id = run.id;
    if (!run.run_async) this.answeredHere.add(id);
    const tracked = this.cancellation.track(id);
    let settled: WorkflowRunRow | null = null;
    const safetyNet = enqueue(
      this.jobs,
      id,
      { request_id: id, workspace_id: run.workspace_id },
      { delayMs: this.env.WORKFLOW_LEASE_MS },
    ).then(
      () => true,
      (error: unknown) => {
        this.logger.warn({ err: error, request_id: id }, 'a workflow run executed where admitted has no queue job to take it over');
        return false;
      },
    );
    const handOver = (error: unknown) => {
      this.logger.warn({ err: error, request_id: id }, 'a workflow run executed where admitted goes to the queue');
      void safetyNet.then((queued) => (queued ? this.takeOverNow(id) : this.requeue(id, run.workspace_id))).catch(() => undefined);
      return null;
    };
    try {
      let state: TerminalState | null;
      try {
        state = await requestContext.run({ requestId: id, workspaceId: run.workspace_id }, () =>
          this.executor.execute(run, tracked.signal),
        );
      } catch (error) {
        const fault = this.executor.fault(error, true, id);
        if (fault.retry) return handOver(fault.error);
        state = fault.state;
      }
      // null: the lease was lost, and the run is whoever took it over's.
      if (!state) return null;
      try {
        settled = await this.settle(id, state);
      } catch (error) {
        // Not announced (the ledger is away…): the queue job settles it again.
        return handOver(error);
      }
      void safetyNet.then((queued) => (queued ? this.jobs.remove(id) : 0)).catch(() => undefined);
      return settled && isTerminal(settled) ? settled : null;
    } finally {
      this.localRuns -= 1;
      this.answeredHere.delete(id);
      tracked.done(settled?.run_status);
    }
  }

  /** The run's waiting queue job may be taken at once. */
  private async takeOverNow(id: string): Promise<void> {
    const job = await this.jobs.getJob(id);
    if (job && (await job.isDelayed())) await job.promote();
  }

  /** A run executing here, whether or not anyone still waits for it: awaited at shutdown. */
  private track(execution: Promise<unknown>): void {
    const tracked = execution.catch(() => undefined).finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /**
   * At shutdown (after the NATS server stopped taking requests), runs executing here are given
   * SHUTDOWN_GRACE_MS to end; those still running are left to their queue jobs (their leases lapse).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.background.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.env.SHUTDOWN_GRACE_MS)));
    await Promise.race([Promise.all(this.background), outOfTime]);
    clearTimeout(timer);
    if (this.background.size > 0)
      this.logger.warn(
        `${this.background.size} workflow run(s) still running at the end of the shutdown grace; their queue jobs take them over`,
      );
  }

  async lookup(workspaceId: string, requestId: string): Promise<WorkflowRunView> {
    const row = await this.runs.findInWorkspace(workspaceId, requestId);
    if (!row) throw new WaggleException('not_found', { detail: 'workflow_run_not_found' });
    return toRunView(row);
  }

  async steps(workspaceId: string, requestId: string): Promise<WorkflowStepRecordView[]> {
    const row = await this.runs.findInWorkspace(workspaceId, requestId);
    if (!row) throw new WaggleException('not_found', { detail: 'workflow_run_not_found' });
    return (await this.runs.steps(requestId)).map(toStepRecordView);
  }

  /**
   * A terminal move and everything that follows it. Idempotent: a run already terminal is only
   * announced again (its callback is queued by delivery id, so it is delivered once).
   */
  async settle(id: string, state: TerminalState, from: ActiveStatuses = 'active'): Promise<WorkflowRunRow | null> {
    const { run, promoted } = await this.runs.finish(id, state, from);
    const row = run ?? (await this.runs.find(id));
    if (row) await this.announce(row);
    for (const started of promoted) {
      this.ledger.save(ledgerRecordOf(started));
      await this.enqueue(started).catch((error: unknown) =>
        this.logger.error({ err: error, request_id: started.id }, 'a promoted workflow run could not be queued; the reaper will fail it'),
      );
    }
    return row;
  }

  /** Tells everyone a terminal run ended: the ledger, its callback (async runs), and the waiting sync caller. */
  async announce(row: WorkflowRunRow): Promise<void> {
    if (!isTerminal(row)) return;
    this.ledger.save(ledgerRecordOf(row));
    // Announced only once the ledger has stored the result: the run's job ends after this, so a
    // replica that dies before leaves the job to run again (and announce again), and the final
    // state can never be lost while its callback goes out (found by the chaos tier).
    if (!(await this.ledger.stored(row.id)))
      throw new WaggleException('upstream_request_failed', {
        status: 503,
        detail: 'ledger_not_published',
        params: { request_id: row.id },
      });
    if (row.run_async && row.callback_url) {
      const body = callbackBodyOf(row);
      await enqueue(this.callbacks, deliveryIdFor(row.id), {
        delivery_id: deliveryIdFor(row.id),
        workspace_id: row.workspace_id,
        request_id: row.id,
        event_type: body.event_type,
        url: row.callback_url,
        body,
        owner: { kind: 'workflow_deployment', id: row.deployment_id },
        run_ended_at: (row.ended_at ?? new Date()).toISOString(),
      });
    }
    // A sync caller waits on the replica that admitted the run: answered from memory when the run
    // ran there, else woken here or (when another replica finished it) by the `finished` message.
    this.wake(row.id);
    if (!row.run_async && !this.answeredHere.has(row.id))
      this.rpc.publish(WORKFLOW_RUN_FINISHED_SUBJECT, { request_id: row.id } satisfies WorkflowRunFinishedMessage);
  }

  /**
   * Finishes a run still waiting for its slot as cancelled, where it waits (its slot counter, the
   * ledger and its callback follow as for any terminal move). False when it is not queued.
   */
  async cancelQueued(id: string): Promise<boolean> {
    const row = await this.settle(id, CANCELLED_STATE, 'queued');
    return row?.run_status === 'cancelled';
  }

  /** Starts queued runs that fit now (called by the reaper as a safety net). */
  async startQueued(workspaceId: string): Promise<void> {
    for (const started of await this.runs.promoteQueued(workspaceId)) {
      this.ledger.save(ledgerRecordOf(started));
      await this.enqueue(started);
    }
  }

  /** Queues a running run's job again (a no-op while its job exists). */
  async requeue(id: string, workspaceId: string): Promise<void> {
    await enqueue(this.jobs, id, { request_id: id, workspace_id: workspaceId });
  }

  private async enqueue(row: WorkflowRunRow): Promise<void> {
    try {
      await enqueue(this.jobs, row.id, { request_id: row.id, workspace_id: row.workspace_id });
    } catch (error) {
      if (isTransientFailure(error)) {
        // Redis is away, but the run is stored as running: the reaper queues a running run that no
        // worker has taken within WORKFLOW_REAPER_GRACE_MS, so the caller's run is accepted as it is.
        this.logger.warn({ err: error, request_id: row.id }, 'a workflow run could not be queued yet; the reaper will queue it');
        return;
      }
      this.logger.error({ err: error, request_id: row.id }, 'a workflow run could not be queued');
      await this.settle(row.id, {
        status: 'failed',
        output: null,
        ...failureState({ detail: 'workflow_run_not_enqueued' }),
        errorCode: 'workflow_enqueue_failed',
      });
      throw new WaggleException('workflow_enqueue_failed', { extra: { request_id: row.id } });
    }
  }

  private wake(requestId: string): void {
    const waiting = this.waiters.get(requestId);
    if (!waiting) return;
    for (const resolve of waiting) resolve();
  }

  /** Resolves when the run is announced finished (or a check of its row, now and then, finds it so). */
  private waitFor(requestId: string): { done: Promise<void>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const waiting = this.waiters.get(requestId) ?? new Set<() => void>();
      this.waiters.set(requestId, waiting);
      // A NATS message can be lost, or have come before this wait began: the row is checked now and then too.
      const check = () =>
        void this.runs.find(requestId).then(
          (row) => row && isTerminal(row) && finish(),
          () => undefined,
        );
      const checks = setInterval(check, this.env.WORKFLOW_SYNC_RECHECK_MS);
      const finish = () => {
        clearInterval(checks);
        waiting.delete(finish);
        if (waiting.size === 0) this.waiters.delete(requestId);
        resolve();
      };
      waiting.add(finish);
      cancel = finish;
      check();
    });
    return { done, cancel };
  }

  /**
   * The sync answer: the output, the run's failure, or (past the wait) a time-out that names the
   * request id. The wait is WORKFLOW_SYNC_TIMEOUT_MS, cut short to answer before the caller's
   * deadline (RpcHeaders.deadline), so the caller hears this answer rather than its own time-out.
   * A run that went elsewhere (its lease lost, handed to the queue, or queued at shutdown: `execution`
   * answers null) is awaited by its end's announcement.
   */
  private async syncAnswer(requestId: string, execution: Promise<WorkflowRunRow | null>): Promise<WorkflowInvokeResponse> {
    const callerWaitMs = msUntilDeadline();
    const waitMs = Math.min(
      this.env.WORKFLOW_SYNC_TIMEOUT_MS,
      callerWaitMs === undefined ? Infinity : Math.max(0, callerWaitMs - DEADLINE_MARGIN_MS),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)));
    try {
      const here = await Promise.race([execution, timeout]);
      if (here !== 'timeout' && here !== null) return syncAnswerOf(here);
      if (here === null) {
        const finished = this.waitFor(requestId);
        await Promise.race([finished.done, timeout]);
        finished.cancel();
      }
    } finally {
      clearTimeout(timer);
    }
    const row = await this.runs.find(requestId);
    if (!row || !isTerminal(row)) {
      throw new WaggleException('upstream_request_failed', {
        status: 504,
        detail: 'workflow_sync_timeout',
        params: { seconds: Math.round(waitMs / 1000), request_id: requestId },
        extra: { request_id: requestId },
      });
    }
    return syncAnswerOf(row);
  }
}

/** A finished sync run's answer: its output, its failure, or 409 run_cancelled. */
function syncAnswerOf(row: WorkflowRunRow): WorkflowInvokeResponse {
  if (row.run_status === 'cancelled') throw runCancelledError(row.id);
  if (row.run_status !== 'completed') throw runFailure(row);
  return { request_id: row.id, run_status: 'completed', output: row.output_content ?? '' };
}
