import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AgentInvokeController } from './agent-invoke.controller';
import { AgentsController } from './agents.controller';
import { PrivateAgentsController } from './private-agents.controller';

/** A workspace's agents (public CRUD), their invoke, and the private management of their webhook secrets. */
@Module({ imports: [AuthModule], controllers: [AgentsController, AgentInvokeController, PrivateAgentsController] })
export class AgentsModule {}
