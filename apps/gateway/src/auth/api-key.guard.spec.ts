import type { ExecutionContext } from '@nestjs/common';
import type { ResolvedApiKey } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';
import type { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeyGuard } from './api-key.guard';
import type { AuthenticatedRequest } from './authenticated-request';

const WORKSPACE = '0b6f7c1e-4a53-4f3e-9d83-0b9a4c1d2e3f';
const resolved: ResolvedApiKey = {
  key_id: 'k',
  workspace_id: WORKSPACE,
  language: 'es',
  limits: {
    rate_limit_per_day: 10,
    provider_tool_calls_per_day: null,
    workflow_concurrency: 1,
    workflow_step_limit: 50,
    asset_storage_bytes: null,
  },
  hosted_credits: false,
};

function contextFor(request: Partial<AuthenticatedRequest>): ExecutionContext {
  return { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
}

describe('ApiKeyGuard', () => {
  const guard = new ApiKeyGuard({ authenticate: async () => resolved } as unknown as ApiKeyAuthenticator);

  it('attaches the workspace and its language to the request', async () => {
    const request: Partial<AuthenticatedRequest> = { headers: { authorization: 'Bearer x' }, params: {} };
    await expect(guard.canActivate(contextFor(request))).resolves.toBe(true);
    expect(request.auth).toBe(resolved);
    expect(request.locale).toBe('es');
  });

  it('accepts the key workspace in the path', async () => {
    await expect(guard.canActivate(contextFor({ headers: {}, params: { workspace_id: WORKSPACE } }))).resolves.toBe(true);
  });

  it('answers 404 "Workspace not found" for any other workspace in the path', async () => {
    const error = await guard
      .canActivate(contextFor({ headers: {}, params: { workspace_id: '11111111-1111-4111-8111-111111111111' } }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WaggleException);
    expect(error).toMatchObject({ code: 'not_found', status: 404, message: 'Workspace not found' });
  });
});
