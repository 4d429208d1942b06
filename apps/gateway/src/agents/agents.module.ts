import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AgentsController } from './agents.controller';
import { PrivateAgentsController } from './private-agents.controller';

/** A workspace's agents (public CRUD) and the private management of their webhook secrets. */
@Module({ imports: [AuthModule], controllers: [AgentsController, PrivateAgentsController] })
export class AgentsModule {}
