import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

/**
 * Waggle as an MCP server (the spec's decisions, MCP: "Waggle as a server", "exposed tools"):
 * what a prompt variant, a workflow variant or an agent says to be offered as a tool, and the
 * tools the owning services describe to the gateway.
 */

/** A tool's name: what an MCP client calls it by. */
export const MCP_TOOL_NAME_PATTERN = /^[a-z0-9_]{1,40}$/;
export const MCP_TOOL_NAME_MAX = 40;
export const MCP_TOOL_DESCRIPTION_MAX = 1024;

/** `publish: {mcp, tool_name?, description?}` as it is stored and answered. */
export interface McpPublish {
  mcp: boolean;
  tool_name?: string;
  description?: string;
}

/** `publish` of a prompt variant (apply file) and of an agent (create, update). */
export class McpPublishDto implements McpPublish {
  @IsDefined()
  @IsBoolean()
  mcp!: boolean;

  @IsOptional()
  @IsString()
  @Matches(MCP_TOOL_NAME_PATTERN)
  tool_name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(MCP_TOOL_DESCRIPTION_MAX)
  description?: string;
}

/** `publish`, validated as a nested McpPublishDto (null: not published, as absent). */
export function McpPublishField(): PropertyDecorator {
  return (target, propertyName) => {
    IsOptional()(target, propertyName);
    ValidateNested()(target, propertyName);
    Type(() => McpPublishDto)(target, propertyName);
  };
}

/** `publish` as it is kept: its three fields only, those given (null and absent: not published). */
export function storedMcpPublish(publish: McpPublish | null | undefined): McpPublish | null {
  if (!publish) return null;
  return {
    mcp: publish.mcp,
    ...(typeof publish.tool_name === 'string' && { tool_name: publish.tool_name }),
    ...(typeof publish.description === 'string' && { description: publish.description }),
  };
}

/** Whether two publish settings say the same (as kept: storedMcpPublish). */
export function sameMcpPublish(a: McpPublish | null | undefined, b: McpPublish | null | undefined): boolean {
  const left = storedMcpPublish(a);
  const right = storedMcpPublish(b);
  if (left === null || right === null) return left === right;
  return left.mcp === right.mcp && left.tool_name === right.tool_name && left.description === right.description;
}

/**
 * A default tool name: the kind's prefix and the artifact's names joined by `_`, lower-cased,
 * every character outside `[a-z0-9_]` turned into `_`, cut to 40 characters
 * (`prompt_<deployment>_<variant>`, `workflow_<deployment>_<variant>`, `agent_<name>`).
 */
export function defaultMcpToolName(prefix: 'prompt' | 'workflow' | 'agent', ...names: string[]): string {
  return [prefix, ...names]
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, MCP_TOOL_NAME_MAX);
}

/** The name a published artifact is offered by: its own `tool_name`, else the default; null when it is not published. */
export function mcpToolNameOf(publish: McpPublish | null | undefined, defaultName: () => string): string | null {
  if (!publish?.mcp) return null;
  return publish.tool_name ?? defaultName();
}

/** The kinds of tools, in the order a tool list gives them (then by name). */
export const MCP_TOOL_KINDS = ['prompt', 'workflow', 'agent', 'knowledge_base'] as const;
export type McpToolKind = (typeof MCP_TOOL_KINDS)[number];

/** A JSON Schema of an object: a tool's arguments or its structured result. */
export type McpObjectSchema = { type: 'object' } & Record<string, unknown>;

/** What a tool call runs. */
export type McpToolTarget =
  | { kind: 'prompt'; deployment: string; variant: string }
  | { kind: 'workflow'; deployment: string; variant: string }
  | { kind: 'agent'; agent_id: string };

/**
 * A published artifact as its service describes it to the gateway: the tool's name, its
 * description, the JSON Schema of its arguments and, when its answer has one, of its
 * structured result (null: the answer is text).
 */
export interface McpToolDescriptor {
  name: string;
  description: string;
  input_schema: McpObjectSchema;
  output_schema: McpObjectSchema | null;
  target: McpToolTarget;
}
