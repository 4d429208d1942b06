import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PrivateRequestsController } from './private-requests.controller';
import { RequestsController } from './requests.controller';
import { RunEventReplay } from './run-event-replay';

/** The request ledger: one run by id (public) and its kept events (RunEventReplay), a workspace's runs by filter (private). */
@Module({
  imports: [AuthModule],
  controllers: [RequestsController, PrivateRequestsController],
  providers: [RunEventReplay],
  exports: [RunEventReplay],
})
export class RequestsModule {}
