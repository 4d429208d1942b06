import type { JSONValue } from 'ai';
import { READ_FILE_TOOL, READ_FILE_TOOL_NAME, type AcceptedAttachment, type DocumentReader } from '@waggle/documents';
import { McpConnectionError, type McpToolResult } from '@waggle/mcp';
import type { ToolCall, ToolDefinition } from '@waggle/providers';
import type { McpToolSet } from '../mcp-tools/mcp-tool-offer';

/** What running one tool call gave: the observation the model gets, and whether it is an error. */
export interface ToolOutcome {
  observation: JSONValue;
  isError: boolean;
}

/** The tools one run offers and how each is run. */
export interface RunTools {
  definitions: ToolDefinition[];
  /** `system` for the built-in tools, `knowledge_base` and `mcp` for the others (the stream's `tool_type`). */
  typeOf(toolName: string): string;
  run(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome>;
}

export const KNOWLEDGE_SEARCH_TOOL_NAME = 'knowledge_search';

/** The tool an agent with attached knowledge bases gets. */
export const KNOWLEDGE_SEARCH_TOOL: ToolDefinition = {
  name: KNOWLEDGE_SEARCH_TOOL_NAME,
  description:
    "Searches the agent's knowledge bases and returns the most relevant passages (chunks), best first, each with the document it comes from and its score. Use it to answer from the knowledge bases; search again with other words if the passages do not answer.",
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for: a question or keywords.' } },
    required: ['query'],
    additionalProperties: false,
  } as ToolDefinition['inputSchema'],
};

/** Runs a `knowledge_search` over the agent's knowledge bases; resolves to the observation. */
export interface KnowledgeSearcher {
  search(query: string, signal: AbortSignal): Promise<ToolOutcome>;
}

/**
 * What the model reads of an MCP tool's result: its structured content (as JSON) or its text
 * (already cut at 100 KiB with a notice); a result the tool marked as an error is an error observation.
 */
export function mcpObservation(result: McpToolResult): ToolOutcome {
  if (result.isError) return { observation: { error: result.text }, isError: true };
  return { observation: (result.structuredContent as JSONValue | undefined) ?? result.text, isError: false };
}

/** An MCP tool call: its result, or an error observation when its server could not be reached (the run goes on). */
async function runMcpTool(mcp: McpToolSet, call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
  const input = call.input;
  if (call.invalid || input === null || typeof input !== 'object' || Array.isArray(input))
    return { observation: { error: `The input of ${call.toolName} must be a JSON object.` }, isError: true };
  try {
    return mcpObservation(await mcp.call(call.toolName, input as Record<string, unknown>, signal));
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    // The connector's message names the server's origin and the stage, never a header value.
    const reason = error instanceof McpConnectionError ? error.message : 'the tool did not answer';
    return { observation: { error: `The tool ${call.toolName} could not be called: ${reason}` }, isError: true };
  }
}

/**
 * The run's tools: `read_file` when the conversation has documents, reading only those (its
 * structured attachments; spec: Attachment rules 5), `knowledge_search` when the agent has
 * knowledge bases, and the MCP tools the agent's servers offer (`<server>__<tool>`). A file that
 * cannot be fetched or read, a search or an MCP call that fails, is the observation (an error
 * text for the model), not a failed run (decisions: attachments).
 */
export function runTools(
  reader: DocumentReader,
  documents: readonly AcceptedAttachment[],
  knowledge?: KnowledgeSearcher,
  mcp?: McpToolSet,
): RunTools {
  const readable = new Set(documents.map((document) => document.url));
  const definitions: ToolDefinition[] =
    readable.size > 0
      ? [
          {
            name: READ_FILE_TOOL.name,
            description: READ_FILE_TOOL.description,
            inputSchema: READ_FILE_TOOL.inputSchema as ToolDefinition['inputSchema'],
          },
        ]
      : [];
  if (knowledge) definitions.push(KNOWLEDGE_SEARCH_TOOL);
  if (mcp) definitions.push(...mcp.definitions);
  return {
    definitions,
    typeOf: (toolName) => (toolName === KNOWLEDGE_SEARCH_TOOL_NAME ? 'knowledge_base' : mcp?.has(toolName) ? 'mcp' : 'system'),
    async run(call, signal) {
      if (mcp?.has(call.toolName)) return runMcpTool(mcp, call, signal);
      if (knowledge && !call.invalid && call.toolName === KNOWLEDGE_SEARCH_TOOL_NAME) {
        const query = (call.input as { query?: unknown } | null)?.query;
        if (typeof query !== 'string' || query.trim() === '')
          return { observation: { error: 'knowledge_search needs a non-empty "query" string.' }, isError: true };
        return knowledge.search(query.slice(0, 10_000), signal);
      }
      if (call.invalid || call.toolName !== READ_FILE_TOOL_NAME || readable.size === 0) {
        return {
          observation: { error: `There is no tool named ${call.toolName} in this conversation, or its input is not valid JSON.` },
          isError: true,
        };
      }
      const url = (call.input as { file_url?: unknown } | null)?.file_url;
      if (typeof url === 'string' && !readable.has(url)) {
        return {
          observation: {
            file: url,
            error: 'This URL is not an attachment of this conversation; read_file reads only the files listed in <available_files>.',
          },
          isError: true,
        };
      }
      const result = await reader.read(call.input, { signal });
      return { observation: result as unknown as JSONValue, isError: 'error' in result };
    },
  };
}
