import { Injectable } from '@nestjs/common';
import { ExperimentRunsRepository } from './experiment-runs.repository';
import { ReleaseEvidence, type GateEvidence } from './release-evidence';

/** The release gate's evidence, read from the summaries stored when runs completed. */
@Injectable()
export class ExperimentReleaseEvidence extends ReleaseEvidence {
  constructor(private readonly runs: ExperimentRunsRepository) {
    super();
  }

  bestFor(workspaceId: string, versionId: string, since: Date): Promise<GateEvidence | null> {
    return this.runs.bestEvidence(workspaceId, versionId, since);
  }
}
