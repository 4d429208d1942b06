import type { ResolvedApiKey } from '@waggle/contracts';
import type { SupportedLocale } from '@waggle/errors';

/** Who calls the MCP server: the workspace's key, as the edge authenticated it, and its language. */
export interface McpCaller {
  auth: ResolvedApiKey;
  locale: SupportedLocale;
}
