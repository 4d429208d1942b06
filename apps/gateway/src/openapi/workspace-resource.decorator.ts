import { applyDecorators, Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { MeteredApiRoute } from '../auth/authenticated.decorator';
import { ErrorBodyDto, RateLimitErrorBodyDto } from '../errors/error-body.dto';

/** A route's answer when the path's workspace is not the API key's. */
export const WORKSPACE_NOT_FOUND = { status: 404, description: 'Workspace not found (error_code not_found)', type: ErrorBodyDto } as const;

/**
 * A controller of a workspace's public collection, `v1/public/workspaces/:workspace_id/<resource>`:
 * API key required and metered, documented with its tag, the workspace parameter and the answers
 * every such route shares (401, 429).
 */
export function WorkspaceResourceController(resource: string, tag: string): ClassDecorator {
  return applyDecorators(
    ApiTags(tag),
    ApiBearerAuth(),
    ApiParam({
      name: 'workspace_id',
      type: String,
      format: 'uuid',
      description: "The API key's workspace; any other answers 404 Workspace not found",
    }),
    ApiResponse({ status: 401, description: 'Missing, invalid or revoked API key', type: ErrorBodyDto }),
    ApiResponse({ status: 429, description: 'Daily API request cap reached', type: RateLimitErrorBodyDto }),
    Controller(`v1/public/workspaces/:workspace_id/${resource}`),
    MeteredApiRoute(),
  );
}
