import type { CredentialSource } from '@waggle/contracts';
import { bigintAsNumber } from '@waggle/database';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WorkflowRunEntity } from './workflow-run.entity';

export const STEP_RUN_STATUSES = ['running', 'completed', 'failed'] as const;
export type StepRunStatus = (typeof STEP_RUN_STATUSES)[number];

/**
 * One executed step of a run (a loop's iterations and the steps inside each are records of
 * their own). `step_key` names it within the run (`pages#3.page` is step `page` of iteration 3
 * of loop `pages`): a re-run of the job finds the finished ones by it and does not repeat them.
 */
@Entity({ name: 'workflow_step_runs' })
@Index('UQ_workflow_step_runs_run_key', ['runId', 'stepKey'], { unique: true })
export class WorkflowStepRunEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @ManyToOne(() => WorkflowRunEntity, (run) => run.steps, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id' })
  run?: WorkflowRunEntity;

  @Column({ name: 'step_key', type: 'text' })
  stepKey!: string;

  @Column({ name: 'step_id', type: 'text' })
  stepId!: string;

  /** A step type, or `loop_iteration`. */
  @Column({ name: 'step_type', type: 'text' })
  stepType!: string;

  /** The iteration of the innermost loop this record belongs to (null outside loops). */
  @Column({ type: 'integer', nullable: true })
  iteration!: number | null;

  @Column({ type: 'text' })
  status!: StepRunStatus;

  @Column({ type: 'jsonb', nullable: true })
  inputs!: unknown;

  @Column({ type: 'jsonb', nullable: true })
  output!: unknown;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'error_code', type: 'text', nullable: true })
  errorCode!: string | null;

  @Column({ type: 'integer', default: 0 })
  tokens!: number;

  @Column({ name: 'model_calls', type: 'integer', default: 0 })
  modelCalls!: number;

  /** A model step's calls, when a fallback could answer or it took more than one (D41). */
  @Column({ name: 'model_attempts', type: 'jsonb', nullable: true })
  modelAttempts!: unknown[] | null;

  /**
   * What the step's own model calls cost (a prompt step's answer, by its model or a fallback, its
   * repair, a call cut short by a cancel at its estimate), in pico-USD, unrounded: the run adds its steps' costs and rounds once, and a
   * re-run adds those of the steps it does not execute again. Null when no call had a price; an
   * agent step's calls are the agent run's own (see WorkflowRunEntity.costMicros).
   */
  @Column({ name: 'cost_picos', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  costPicos!: number | null;

  /** The price version(s) of the step's calls (comma-separated when they differ). */
  @Column({ name: 'price_version', type: 'text', nullable: true })
  priceVersion!: string | null;

  /** Whose provider credentials the step's model calls used; null when it called none. */
  @Column({ type: 'text', nullable: true })
  credentials!: CredentialSource | null;

  /** How many times it was started (more than one: a worker died while it ran). */
  @Column({ type: 'integer', default: 1 })
  attempts!: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;
}
