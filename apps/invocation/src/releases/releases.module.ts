import { Module } from '@nestjs/common';
import { ReleaseEvidence } from '../experiments/release-evidence';
import { PromptsModule } from '../prompts/prompts.module';
import { NoReleaseEvidence } from './no-release-evidence';
import { ReleasesController } from './releases.controller';
import { ReleasesService } from './releases.service';

/** Release pointers of prompt variants: labels, promotion, rollback, history, protection and the release gate. */
@Module({
  imports: [PromptsModule],
  controllers: [ReleasesController],
  // PLACEHOLDER evidence (no-release-evidence.ts) until the experiment runs provide theirs.
  providers: [ReleasesService, { provide: ReleaseEvidence, useClass: NoReleaseEvidence }],
})
export class ReleasesModule {}
