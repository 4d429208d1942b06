import { ProviderCredentialPatterns, type ProviderCredentialView } from '@waggle/contracts';
import { Option, type Command } from 'commander';
import type { Caller } from './cli';
import { confirmDestructive, yesOption } from './confirm';
import { CliFailure, EXIT } from './exit-codes';
import { readInputFile } from './input-file';
import { print } from './output';

/** The key from `--api-key-file`, else stdin (piped, never typed on the command line): its one line, never printed. */
async function readApiKey(file: string | undefined): Promise<string> {
  let text: string;
  if (file !== undefined) text = await readInputFile(file);
  else {
    if (process.stdin.isTTY) throw new CliFailure(EXIT.usage, 'error: give the key with --api-key-file <path>, or pipe it on stdin');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  }
  const key = text.replace(/\r?\n$/, '');
  if (key === '' || /\s/.test(key)) throw new CliFailure(EXIT.usage, 'error: the API key must be one line without spaces');
  return key;
}

function credentialRow(credential: ProviderCredentialView): Record<string, unknown> {
  return {
    provider: credential.provider,
    hint: credential.hint === '' ? '-' : `…${credential.hint}`,
    base_url: credential.base_url ?? '-',
    updated_at: credential.updated_at,
  };
}

/**
 * `provider-credential list|set|delete`: a workspace's own provider keys (the spec's decisions on
 * usage governance), as /v1/private/provider_credentials manages them. `set` reads the key from
 * `--api-key-file` or stdin, so it is in no shell history or process list, and never prints it.
 */
export function addProviderCredentialCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const credential = program
    .command('provider-credential')
    .description("a workspace's own provider keys, used by prompt variants, agents and steps with credentials: workspace");
  credential
    .command('list <workspace-id>')
    .description("a workspace's stored provider keys (their last 4 characters only), by provider")
    .addOption(json())
    .action(async (workspaceId: string, options: { json?: boolean }) => {
      const credentials = await call(ProviderCredentialPatterns.listProviderCredentials, { workspace_id: workspaceId });
      print(credentials, Boolean(options.json), credentials.map(credentialRow));
    });
  credential
    .command('set <workspace-id> <provider>')
    .description("store (or replace) the workspace's key for a provider, once one list-models call with it succeeds")
    .option('--api-key-file <path>', 'a file holding the key (default: read it from stdin)')
    .option('--base-url <url>', "where to call the provider with this key (default: the operator's base URL, else the provider's)")
    .addOption(json())
    .action(async (workspaceId: string, provider: string, options: { apiKeyFile?: string; baseUrl?: string; json?: boolean }) => {
      const apiKey = await readApiKey(options.apiKeyFile);
      const saved = await call(ProviderCredentialPatterns.saveProviderCredential, {
        workspace_id: workspaceId,
        credential: { provider, api_key: apiKey, ...(options.baseUrl !== undefined && { base_url: options.baseUrl }) },
      });
      print(saved, Boolean(options.json), [{ ...credentialRow(saved.credential), replaced: saved.replaced ? 'yes' : 'no' }]);
    });
  credential
    .command('delete <workspace-id> <provider>')
    .description("remove the workspace's key for a provider (asks first): its runs on workspace credentials answer 422 again")
    .addOption(yesOption())
    .addOption(json())
    .action(async (workspaceId: string, provider: string, options: { yes?: boolean; json?: boolean }) => {
      await confirmDestructive(`delete the ${provider} credentials of workspace ${workspaceId}`, options.yes);
      const deleted = await call(ProviderCredentialPatterns.deleteProviderCredential, { workspace_id: workspaceId, provider });
      print(deleted, Boolean(options.json), [{ deleted: deleted.provider }]);
    });
}
