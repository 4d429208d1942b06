import { Module } from '@nestjs/common';
import { WorkspaceCredentials } from './workspace-credentials';

/** The workspaces' own provider keys, read from the invocation service for agent runs. */
@Module({ providers: [WorkspaceCredentials], exports: [WorkspaceCredentials] })
export class ProviderCredentialsModule {}
