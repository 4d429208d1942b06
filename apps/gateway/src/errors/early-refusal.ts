import { toErrorBody, type WaggleException } from '@waggle/errors';
import type { IncomingMessage } from 'node:http';
import { isMcpRequest, mcpErrorText } from '../mcp/mcp-errors';
import { earlyOpenAiHeaders, isOpenAiRequest, openAiErrorText } from '../openai/openai-errors';

/**
 * A refusal answered before any route runs, for a request whose target is known (an unmet
 * `Expect`, `CONNECT`, an overload): its JSON text and extra headers in the shape of the surface
 * the path names, OpenAI's under /openai/, a JSON-RPC error at the MCP server's path, the
 * catalog's elsewhere or when there is no request to tell.
 */
export function earlyRefusal(
  exception: WaggleException,
  request?: Pick<IncomingMessage, 'method' | 'url'>,
): { body: string; headers: Record<string, string> } {
  if (request && isOpenAiRequest(request)) return { body: openAiErrorText(exception, request), headers: earlyOpenAiHeaders(exception) };
  if (request && isMcpRequest(request)) return { body: mcpErrorText(exception), headers: {} };
  return { body: JSON.stringify(toErrorBody(exception, 'en')), headers: {} };
}
