import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ExperimentRunsController } from './experiment-runs.controller';

/** The experiment runs' private routes (documented), owned by the invocation service. */
@Module({ imports: [AuthModule], controllers: [ExperimentRunsController] })
export class ExperimentsModule {}
