import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { PrivateRequestsController } from './private-requests.controller';
import { RequestsController } from './requests.controller';

/** The request ledger: one run by id (public), a workspace's runs by filter (private). */
@Module({ imports: [AuthModule], controllers: [RequestsController, PrivateRequestsController] })
export class RequestsModule {}
