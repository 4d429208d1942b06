import { CatalogPatterns, send } from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import type { NatsRpcClient } from '@waggle/platform';

/** 422 validation_error naming `field`, its message in the reader's language. */
export function invalidGovernanceField(field: string, problem: ErrorDetail): WaggleException {
  return new WaggleException('validation_error', { ...problem, details: [{ field, messages: [errorMessage(problem, 'en')] }] });
}

/** An api_key scope must name one of the workspace's keys that is not revoked (asked of the catalog); 422 otherwise. */
export async function checkApiKeyScope(rpc: NatsRpcClient, workspaceId: string, scope: string, scopeId: string | null): Promise<void> {
  if (scope !== 'api_key') return;
  const keys = await send(rpc, CatalogPatterns.listApiKeys, { workspace_id: workspaceId });
  if (!keys.some((key) => key.id === scopeId && key.revoked_at === null))
    throw invalidGovernanceField('scope_id', { detail: 'scope_api_key_unknown' });
}
