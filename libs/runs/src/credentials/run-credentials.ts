import type { CredentialSource } from '@waggle/contracts';
import { requestContext } from '@waggle/platform';
import type { RunCredentials, WorkspaceCredentialLookup } from '@waggle/providers';

/**
 * A run's credentials as the provider layer resolves its models with (withRunCredentials): the
 * source its prompt variant, agent or step asked for (hosted when unset), and whether the
 * gateway's admission found the workspace's hosted credits used up, from the request's context
 * (a workflow run's executor puts its row's flag there; a queued prompt or agent run was refused
 * at acceptance if it would draw on used-up credits, so a worker has none to carry).
 */
export function runCredentials(
  source: CredentialSource | null | undefined,
  workspaceId: string,
  lookup: WorkspaceCredentialLookup,
): RunCredentials {
  return { source: source ?? 'hosted', workspaceId, creditsExhausted: requestContext.get()?.creditsExhausted === true, lookup };
}
