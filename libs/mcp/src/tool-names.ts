import { createHash } from 'node:crypto';

/** The longest tool name the model providers take. */
export const MAX_MODEL_TOOL_NAME_LENGTH = 64;
const HASH_HEX = 8;
const KEPT = MAX_MODEL_TOOL_NAME_LENGTH - HASH_HEX - 1;

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_HEX);
}

function sanitised(serverId: string, toolName: string): string {
  return `${serverId}__${toolName}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** `<kept>_<8 hex>`: what a name too long (or clashing) becomes. */
function hashedForm(serverId: string, toolName: string, salt = ''): string {
  return `${sanitised(serverId, toolName).slice(0, KEPT)}_${hashOf(`${serverId}__${toolName}${salt}`)}`;
}

/**
 * The name a model sees for tool `toolName` of MCP server `serverId` (the spec's decisions, MCP):
 * `<server>__<tool>` with every character outside `[A-Za-z0-9_-]` replaced by `_`; a name over
 * 64 characters keeps its first 55 and gets `_` and the first 8 hex of sha256(`<server>__<tool>`).
 */
export function modelToolName(serverId: string, toolName: string): string {
  const name = sanitised(serverId, toolName);
  return name.length <= MAX_MODEL_TOOL_NAME_LENGTH ? name : hashedForm(serverId, toolName);
}

/**
 * The model names of one run's MCP tools, mapped back exactly. Two tools whose names only differ
 * in replaced characters (`a.b` and `a_b`) would share a name: the later one gets the hashed form.
 */
export class McpToolNames {
  private readonly byModelName = new Map<string, { serverId: string; toolName: string }>();
  private readonly byTool = new Map<string, string>();

  /** The model name of the tool (the same one when added again). */
  add(serverId: string, toolName: string): string {
    const key = JSON.stringify([serverId, toolName]);
    const known = this.byTool.get(key);
    if (known !== undefined) return known;
    let name = modelToolName(serverId, toolName);
    for (let attempt = 0; this.byModelName.has(name); attempt++) {
      name = hashedForm(serverId, toolName, attempt === 0 ? '' : `#${attempt}`);
    }
    this.byModelName.set(name, { serverId, toolName });
    this.byTool.set(key, name);
    return name;
  }

  /** The tool a model name stands for; undefined for a name this run never offered. */
  resolve(modelName: string): { serverId: string; toolName: string } | undefined {
    const found = this.byModelName.get(modelName);
    return found === undefined ? undefined : { ...found };
  }

  get size(): number {
    return this.byModelName.size;
  }
}
