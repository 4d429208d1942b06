import { contentHashOf } from '@waggle/platform';

/** One tool as an MCP server lists it: what an approval covers. */
export interface McpToolSnapshot {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** The most tools one MCP server may list (the spec's decisions, MCP). */
export const MAX_MCP_TOOLS_PER_SERVER = 100;

/** sha256 (hex) of the tool's definition as canonical JSON (sorted keys): what tells a changed tool from an approved one. */
export function toolDefinitionHash(tool: McpToolSnapshot): string {
  return contentHashOf(
    { name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
    'code-unit',
  );
}

/** sha256 (hex) over a server's tools in name order: the approved snapshot's hash. */
export function toolSnapshotHash(tools: McpToolSnapshot[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return contentHashOf(
    sorted.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
    })),
    'code-unit',
  );
}

/** Tools whose definition differs from the approved one or that are new (`changed`), and approved tools no longer listed (`removed`), by name. */
export function compareToolSnapshots(approved: McpToolSnapshot[], listed: McpToolSnapshot[]): { changed: string[]; removed: string[] } {
  const approvedHashes = new Map(approved.map((tool) => [tool.name, toolDefinitionHash(tool)]));
  const listedNames = new Set(listed.map((tool) => tool.name));
  return {
    changed: listed.filter((tool) => approvedHashes.get(tool.name) !== toolDefinitionHash(tool)).map((tool) => tool.name),
    removed: approved.filter((tool) => !listedNames.has(tool.name)).map((tool) => tool.name),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The snapshot of a listed tool: the fields an approval covers, undefined ones left out. */
export function toolSnapshotOf(tool: {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
}): McpToolSnapshot {
  return {
    name: tool.name,
    ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
    ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
    inputSchema: isObject(tool.inputSchema) ? tool.inputSchema : { type: 'object' },
    ...(isObject(tool.outputSchema) ? { outputSchema: tool.outputSchema } : {}),
  };
}
