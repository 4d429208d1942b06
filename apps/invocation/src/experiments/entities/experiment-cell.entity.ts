import type { EvaluationResult, ExperimentCellStatus } from '@waggle/contracts';
import { bigintAsNumber } from '@waggle/database';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ExperimentRunEntity } from './experiment-run.entity';

/** One cell of a run: a dataset row run by a candidate, as its own prompt run. Written once, from `pending`. */
@Entity({ name: 'experiment_cells' })
@Index('IDX_experiment_cells_run_order', ['runId', 'rowIndex', 'candidateIndex'])
@Index('UQ_experiment_cells_request', ['requestId'], { unique: true })
export class ExperimentCellEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'run_id', type: 'text' })
  runId!: string;

  @ManyToOne(() => ExperimentRunEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'run_id' })
  run?: ExperimentRunEntity;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  /** The dataset row's id, kept across versions. */
  @Column({ name: 'row_id', type: 'text' })
  rowId!: string;

  /** The row's place in the dataset version: the cells' order. */
  @Column({ name: 'row_index', type: 'integer' })
  rowIndex!: number;

  @Column({ type: 'text' })
  candidate!: string;

  /** The candidate's place in the run. */
  @Column({ name: 'candidate_index', type: 'integer' })
  candidateIndex!: number;

  /** The cell's own prompt run: its ledger record, cancellable like any run. */
  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @Column({ type: 'text' })
  status!: ExperimentCellStatus;

  @Column({ type: 'jsonb', nullable: true })
  output!: unknown;

  @Column({ type: 'jsonb', nullable: true })
  error!: { code: string; message: string } | null;

  @Column({ name: 'latency_ms', type: 'integer', nullable: true })
  latencyMs!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  usage!: Record<string, unknown> | null;

  @Column({ name: 'cost_micros', type: 'bigint', nullable: true, transformer: bigintAsNumber })
  costMicros!: number | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  evaluations!: EvaluationResult[];

  @Column({ type: 'boolean', default: false })
  passed!: boolean;

  /** When a worker took the cell (null while it waits): a cancel stops the prompt runs of the cells taken. */
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
