/** A completed experiment run that had a version as an active candidate, with that candidate's results. */
export interface GateEvidence {
  experiment_run_id: string;
  pass_rate: number;
  /** The finish time (ISO). */
  finished_at: string;
}

/**
 * What the release gate reads of experiment runs (the spec's decisions: release gate): the
 * experiment runs own their tables, the releases read them only through this.
 */
export abstract class ReleaseEvidence {
  /**
   * The best evidence for a version: among the workspace's `completed` runs finished at or after
   * `since` that had this exact version (by id) as an active candidate, the one whose candidate
   * has the highest pass rate (newest first on a tie); null when there is none.
   */
  abstract bestFor(workspaceId: string, versionId: string, since: Date): Promise<GateEvidence | null>;
}
