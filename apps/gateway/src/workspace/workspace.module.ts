import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { WorkspaceController } from './workspace.controller';

@Module({ imports: [AuthModule], controllers: [WorkspaceController] })
export class WorkspaceModule {}
