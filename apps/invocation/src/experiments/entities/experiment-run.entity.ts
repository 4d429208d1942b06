import type {
  EvaluatorSpec,
  ExperimentCandidateSummary,
  ExperimentCandidateView,
  ExperimentRunStatus,
  ResponseFormat,
} from '@waggle/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { StoredPromptMessage, StoredPromptParams } from '../../prompts/prompt-definition';

/** An inline candidate's prompt, made when the run was created (promptVersionOf) and never stored as a version. */
export interface InlineVersion {
  model: string;
  messages: StoredPromptMessage[];
  params: StoredPromptParams;
  variables: string[];
  imageInputs: string[];
  fallbacks: string[];
  responseFormat: ResponseFormat | null;
  credentials: 'hosted' | 'workspace';
  contentHash: string;
}

/**
 * A candidate as the run keeps it: what it answers (ExperimentCandidateView), and what its cells
 * run, pinned when the run was created (a later promotion does not change a running experiment).
 */
export interface StoredCandidate extends ExperimentCandidateView {
  deployment_id: string | null;
  variant_id: string | null;
  /** An inline candidate's id: what its cells' ledger records name as their deployment, variant and version. */
  inline_id: string | null;
  inline_version: InlineVersion | null;
}

/** One experiment run (the spec's decisions: experiment runs). Its id is a request id, so the cancel route finds it. */
@Entity({ name: 'experiment_runs' })
@Index('IDX_experiment_runs_workspace_created', ['workspaceId', 'createdAt'])
export class ExperimentRunEntity {
  /** `req_` + 32 hex digits, made when the run was created. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'text' })
  status!: ExperimentRunStatus;

  @Column({ name: 'dataset_id', type: 'uuid' })
  datasetId!: string;

  @Column({ name: 'dataset_version', type: 'integer' })
  datasetVersion!: number;

  @Column({ type: 'jsonb' })
  candidates!: StoredCandidate[];

  @Column({ type: 'jsonb' })
  evaluators!: EvaluatorSpec[];

  @Column({ type: 'text', nullable: true })
  baseline!: string | null;

  @Column({ name: 'min_pass_rate', type: 'double precision' })
  minPassRate!: number;

  /** Rows × active candidates. */
  @Column({ name: 'cell_count', type: 'integer' })
  cellCount!: number;

  /** Each candidate's results, written when the run ends (what ReleaseEvidence reads). */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  summary!: ExperimentCandidateSummary[];

  /** Why the run failed; null otherwise. */
  @Column({ type: 'jsonb', nullable: true })
  error!: { code: string; message: string } | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
