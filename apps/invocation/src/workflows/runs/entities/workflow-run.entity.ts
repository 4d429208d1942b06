import type { CredentialSource, FlatMetadata, RunStatus, RunSurface } from '@waggle/contracts';
import { bigintAsNumber } from '@waggle/database';
import type { NestedMessage } from '@waggle/errors';
import { Column, CreateDateColumn, Entity, Generated, Index, OneToMany, PrimaryColumn } from 'typeorm';
import { WorkflowStepRunEntity } from './workflow-step-run.entity';

/**
 * One workflow run, written before anything of it executes: the version it runs, its inputs,
 * the limits it was accepted under, where it stands (run_status, the worker's lease) and how it
 * ended. Its `running` rows are the workspace's taken concurrency slots, so the slot count
 * survives any restart.
 */
@Entity({ name: 'workflow_runs' })
@Index('IDX_workflow_runs_workspace_active', ['workspaceId', 'queueSeq'], { where: `"run_status" IN ('queued', 'running')` })
@Index('IDX_workflow_runs_running_lease', ['leaseExpiresAt'], { where: `"run_status" = 'running'` })
export class WorkflowRunEntity {
  /** The request id. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'deployment_id', type: 'uuid' })
  deploymentId!: string;

  @Column({ name: 'deployment_name', type: 'text' })
  deploymentName!: string;

  @Column({ name: 'variant_id', type: 'uuid' })
  variantId!: string;

  @Column({ name: 'variant_name', type: 'text' })
  variantName!: string;

  @Column({ name: 'version_id', type: 'uuid' })
  versionId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ name: 'run_status', type: 'text' })
  runStatus!: RunStatus;

  @Column({ name: 'run_async', type: 'boolean' })
  runAsync!: boolean;

  @Column({ name: 'start_inputs', type: 'jsonb' })
  startInputs!: Record<string, unknown>;

  @Column({ name: 'output_content', type: 'text', nullable: true })
  outputContent!: string | null;

  @Column({ name: 'error_message', type: 'text', nullable: true })
  errorMessage!: string | null;

  /** The failure as a message id and parameters, rendered in the reader's language (null on runs from before it, or English only). */
  @Column({ name: 'error_detail', type: 'jsonb', nullable: true })
  errorDetail!: NestedMessage | null;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode!: string | null;

  @Column({ name: 'callback_url', type: 'text', nullable: true })
  callbackUrl!: string | null;

  @Column({ type: 'jsonb' })
  metadata!: FlatMetadata;

  @Column({ name: 'user_label', type: 'text', nullable: true })
  userLabel!: string | null;

  /** The surface that started the run (`mcp`), for its ledger record; null for the native route. */
  @Column({ type: 'text', nullable: true })
  surface!: RunSurface | null;

  /**
   * The gateway's admission found the workspace's hosted credits used up when the run was asked
   * for: its model calls on the operator's keys answer 402 insufficient_hosted_llm_credits
   * wherever and whenever the run executes (the request's context is gone by then).
   */
  @Column({ name: 'credits_exhausted', type: 'boolean', default: false })
  creditsExhausted!: boolean;

  /** The plan's caps when the run was accepted (null = unlimited). */
  @Column({ name: 'concurrency_limit', type: 'integer', nullable: true })
  concurrencyLimit!: number | null;

  @Column({ name: 'step_limit', type: 'integer', nullable: true })
  stepLimit!: number | null;

  @Column({ name: 'tool_call_limit', type: 'integer', nullable: true })
  toolCallLimit!: number | null;

  @Column({ name: 'steps_executed', type: 'integer', default: 0 })
  stepsExecuted!: number;

  @Column({ name: 'total_tokens', type: 'integer', default: 0 })
  totalTokens!: number;

  /**
   * What the model calls the workflow made itself cost (its prompt steps: answers, repairs,
   * fallbacks), integer micro-USD, summed from its steps' unrounded costs and rounded once; its
   * ledger record's `cost_micros`. An agent step's calls are not in it: the agent runs in the agent
   * service as a run of its own (a child request id) whose ledger record carries that cost, so
   * spend added up over the ledger counts every call once. Null while running, when no model was
   * called (or none had a price), and for a run ended where it was not executed (the reaper).
   */
  @Column({ name: 'cost_micros', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  costMicros!: number | null;

  /** The price version(s) `cost_micros` was computed with. */
  @Column({ name: 'price_version', type: 'text', nullable: true })
  priceVersion!: string | null;

  /** Whose provider credentials the workflow's own model calls used; null when it made none. */
  @Column({ type: 'text', nullable: true })
  credentials!: CredentialSource | null;

  /** Admission order: queued runs start in this order. */
  @Column({ name: 'queue_seq', type: 'bigint' })
  @Generated('increment')
  queueSeq!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  /** started_at + the run time-out: past it the run fails. */
  @Column({ name: 'deadline_at', type: 'timestamptz', nullable: true })
  deadlineAt!: Date | null;

  /** The worker holding the run and until when; it renews while it works. */
  @Column({ name: 'lease_owner', type: 'text', nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  /** How many times a worker took the run (more than one: a worker died or the job was re-run). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @OneToMany(() => WorkflowStepRunEntity, (step) => step.run)
  steps?: WorkflowStepRunEntity[];
}
