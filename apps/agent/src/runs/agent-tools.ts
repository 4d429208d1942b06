import type { JSONValue } from 'ai';
import { READ_FILE_TOOL, READ_FILE_TOOL_NAME, type AcceptedAttachment, type DocumentReader } from '@waggle/documents';
import type { ToolCall, ToolDefinition } from '@waggle/providers';

/** What running one tool call gave: the observation the model gets, and whether it is an error. */
export interface ToolOutcome {
  observation: JSONValue;
  isError: boolean;
}

/** The tools one run offers and how each is run. */
export interface RunTools {
  definitions: ToolDefinition[];
  /** `system` for the built-in tools (the stream's `tool_type`). */
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
 * The run's tools: `read_file` when the conversation has documents, reading only those (its
 * structured attachments; spec: Attachment rules 5), and `knowledge_search` when the agent
 * has knowledge bases. A file that cannot be fetched or read, or a search that fails, is the
 * observation (an error text for the model), not a failed run (decisions: attachments).
 */
export function runTools(reader: DocumentReader, documents: readonly AcceptedAttachment[], knowledge?: KnowledgeSearcher): RunTools {
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
  return {
    definitions,
    typeOf: (toolName) => (toolName === KNOWLEDGE_SEARCH_TOOL_NAME ? 'knowledge_base' : 'system'),
    async run(call, signal) {
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
