import { Controller, Get, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ACCOUNT_LANGUAGES, CatalogPatterns, send, type AccountLanguage, type WorkspaceSummary } from '@waggle/contracts';
import { NatsRpcClient } from '@waggle/platform';
import type { AuthenticatedRequest } from '../auth/authenticated-request';
import { PrivateApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto } from '../errors/error-body.dto';

/** What a key's holder may know of its own workspace: no limits' internals, no other workspace. */
export interface WorkspaceView {
  workspace: { id: string; name: string; plan: string; language: AccountLanguage; created_at: string };
  api_key: { id: string };
}

class WorkspaceFieldsDto {
  @ApiProperty({ format: 'uuid', description: 'The id the public routes take as {workspace_id}' })
  id!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty({ description: "The workspace's plan" })
  plan!: string;
  @ApiProperty({ enum: ACCOUNT_LANGUAGES, description: 'The language error messages are answered in' })
  language!: string;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

class ApiKeyIdDto {
  @ApiProperty({ format: 'uuid', description: "The calling key's id (what budgets and rate limits scope api_key by)" })
  id!: string;
}

class WorkspaceViewDto {
  @ApiProperty({ type: WorkspaceFieldsDto })
  workspace!: WorkspaceFieldsDto;
  @ApiProperty({ type: ApiKeyIdDto })
  api_key!: ApiKeyIdDto;
}

/**
 * `GET /v1/private/workspace`: the workspace the calling key belongs to. The public collections
 * take the workspace id in their path; a client holding only a key (the web console) learns it here.
 */
@ApiTags('workspace')
@ApiBearerAuth()
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto })
@Controller('v1/private/workspace')
@PrivateApiRoute()
export class WorkspaceController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  @ApiOkResponse({ type: WorkspaceViewDto })
  async show(@Req() request: AuthenticatedRequest): Promise<WorkspaceView> {
    const workspace: WorkspaceSummary = await send(this.rpc, CatalogPatterns.getWorkspace, { workspace_id: request.auth.workspace_id });
    return {
      workspace: {
        id: workspace.id,
        name: workspace.name,
        plan: workspace.plan,
        language: workspace.language,
        created_at: workspace.created_at,
      },
      api_key: { id: request.auth.key_id },
    };
  }
}
