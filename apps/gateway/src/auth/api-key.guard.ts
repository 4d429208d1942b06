import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { WaggleException } from '@waggle/errors';
import { requestContext } from '@waggle/platform';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import type { AuthenticatedRequest } from './authenticated-request';

/**
 * `Authorization: Bearer <key>`. A `{workspace_id}` in the path that is not the key's
 * answers 404 "Workspace not found", whether or not that workspace exists.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly authenticator: ApiKeyAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const auth = await this.authenticator.authenticate(request.headers.authorization);
    request.auth = auth;
    request.locale = auth.language;
    const store = requestContext.get();
    if (store) {
      store.workspaceId = auth.workspace_id;
      store.apiKeyId = auth.key_id;
    }
    const pathWorkspace = request.params?.workspace_id;
    if (pathWorkspace !== undefined && pathWorkspace !== auth.workspace_id) {
      throw new WaggleException('not_found', { detail: 'workspace_not_found' });
    }
    return true;
  }
}
