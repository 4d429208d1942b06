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

/**
 * The run's tools: `read_file` when the conversation has documents, reading only those (its
 * structured attachments; spec: Attachment rules 5). A file that cannot be fetched or read is
 * the observation (an error text for the model), not a failed run (decisions: attachments).
 */
export function runTools(reader: DocumentReader, documents: readonly AcceptedAttachment[]): RunTools {
  const readable = new Set(documents.map((document) => document.url));
  const definitions: ToolDefinition[] = readable.size > 0 ? [{ name: READ_FILE_TOOL.name, description: READ_FILE_TOOL.description, inputSchema: READ_FILE_TOOL.inputSchema as ToolDefinition['inputSchema'] }] : [];
  return {
    definitions,
    typeOf: () => 'system',
    async run(call, signal) {
      if (call.invalid || call.toolName !== READ_FILE_TOOL_NAME || readable.size === 0) {
        return { observation: { error: `There is no tool named ${call.toolName} in this conversation, or its input is not valid JSON.` }, isError: true };
      }
      const url = (call.input as { file_url?: unknown } | null)?.file_url;
      if (typeof url === 'string' && !readable.has(url)) {
        return {
          observation: { file: url, error: 'This URL is not an attachment of this conversation; read_file reads only the files listed in <available_files>.' },
          isError: true,
        };
      }
      const result = await reader.read(call.input, { signal });
      return { observation: result as unknown as JSONValue, isError: 'error' in result };
    },
  };
}
