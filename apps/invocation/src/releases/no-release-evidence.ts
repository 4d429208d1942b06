import { Injectable } from '@nestjs/common';
import { ReleaseEvidence, type GateEvidence } from '../experiments/release-evidence';

/**
 * PLACEHOLDER until the experiment runs land: no version has evidence, so a protected variant's
 * deployed version moves only by override. The experiment runs provide the real ReleaseEvidence
 * (their completed runs); this provider is swapped for it then.
 */
@Injectable()
export class NoReleaseEvidence extends ReleaseEvidence {
  bestFor(_workspaceId: string, _versionId: string, _since: Date): Promise<GateEvidence | null> {
    return Promise.resolve(null);
  }
}
