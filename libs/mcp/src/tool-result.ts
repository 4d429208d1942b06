/** What a tool call answered, as a model or a workflow step reads it. */
export interface McpToolResult {
  /** The tool itself reported a failure (the call reached it and it answered). */
  isError: boolean;
  /** The result's content as text (cut to MAX_MCP_TOOL_RESULT_BYTES, a notice appended, when longer). */
  text: string;
  /** The tool's structured content, when it answered a JSON object. */
  structuredContent?: Record<string, unknown>;
  truncated: boolean;
}

/** The most bytes (UTF-8) of a tool result's text a model sees (the spec's decisions, MCP). */
export const MAX_MCP_TOOL_RESULT_BYTES = 100 * 1024;

/**
 * `text` cut to at most `maxBytes` bytes of UTF-8, never inside a character, with a notice
 * appended when it was cut.
 */
export function truncateToolText(text: string, maxBytes = MAX_MCP_TOOL_RESULT_BYTES): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that did not fit.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  const kept = bytes.subarray(0, end).toString('utf8');
  return {
    text: `${kept}\n\n[truncated: the tool's result was ${bytes.length} bytes; only the first ${end} are shown]`,
    truncated: true,
  };
}

interface ContentBlockLike {
  type?: unknown;
  text?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: { uri?: unknown; mimeType?: unknown; text?: unknown };
}

/** One content block as text: text as it is, other kinds as a short bracketed note. */
function blockText(block: ContentBlockLike): string {
  const str = (value: unknown) => (typeof value === 'string' ? value : '');
  switch (block.type) {
    case 'text':
      return str(block.text);
    case 'image':
    case 'audio':
      return `[${block.type}${str(block.mimeType) ? `: ${str(block.mimeType)}` : ''}]`;
    case 'resource': {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource: ${str(resource.uri)}${str(resource.mimeType) ? ` (${str(resource.mimeType)})` : ''}]`;
    }
    case 'resource_link':
      return `[resource link: ${str(block.name) || str(block.uri)} ${str(block.uri)}]`.replace(/ ]$/, ']');
    default:
      return `[${typeof block.type === 'string' ? block.type : 'unknown'} content]`;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A `tools/call` result as McpToolResult: its content blocks as text, one per line (the structured
 * content as JSON when there is no content), cut to `maxBytes`.
 */
export function toolResultOf(
  result: { content?: unknown; structuredContent?: unknown; isError?: unknown },
  maxBytes = MAX_MCP_TOOL_RESULT_BYTES,
): McpToolResult {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlockLike[]) : [];
  const structuredContent = isObject(result.structuredContent) ? result.structuredContent : undefined;
  const raw =
    blocks.length > 0
      ? blocks.map((block) => blockText(isObject(block) ? block : {})).join('\n')
      : result.structuredContent === undefined
        ? ''
        : JSON.stringify(result.structuredContent);
  const { text, truncated } = truncateToolText(raw, maxBytes);
  return { isError: result.isError === true, text, ...(structuredContent ? { structuredContent } : {}), truncated };
}
