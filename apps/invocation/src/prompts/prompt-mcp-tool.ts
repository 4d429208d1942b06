import { defaultMcpToolName, mcpToolNameOf, type McpObjectSchema, type McpPublish, type McpToolDescriptor } from '@waggle/contracts';
import type { PublishedVariant } from '../deployments/deployment.repository';
import type { PromptVersionEntity } from './entities/prompt-version.entity';

/** A published prompt variant's tool name (`publish.tool_name`, else `prompt_<deployment>_<variant>` normalized), else null. */
export function promptToolName(deployment: string, variant: string, publish: McpPublish | null | undefined): string | null {
  return mcpToolNameOf(publish, () => defaultMcpToolName('prompt', deployment, variant));
}

/** A response format's schema when it describes an object: what a tool's structured result can be. */
export function objectSchemaOf(schema: Record<string, unknown> | undefined): McpObjectSchema | null {
  return schema?.type === 'object' ? (schema as McpObjectSchema) : null;
}

/**
 * A published prompt variant as an MCP tool (the spec's decisions, MCP, "exposed tools"): its
 * template variables are the arguments (each a string, all required); the answer is text, or,
 * when its response format's schema is an object, that schema and the parsed answer.
 */
export function promptToolDescriptor(published: PublishedVariant<PromptVersionEntity>): McpToolDescriptor | null {
  const version = published.currentVersion;
  const name = promptToolName(published.deployment, published.variant, published.publish);
  if (!version || name === null) return null;
  const images = new Set(version.imageInputs);
  const properties = Object.fromEntries(
    version.variables.map((variable) => [
      variable,
      images.has(variable) ? { type: 'string', description: 'The URL of an image' } : { type: 'string' },
    ]),
  );
  return {
    name,
    description:
      published.publish.description ??
      `Runs the prompt "${published.deployment}" (variant "${published.variant}")` +
        (version.variables.length > 0 ? ` with its template variables ${version.variables.join(', ')}.` : '.'),
    input_schema: { type: 'object', properties, required: [...version.variables], additionalProperties: false },
    output_schema: objectSchemaOf(version.responseFormat?.schema),
    target: { kind: 'prompt', deployment: published.deployment, variant: published.variant },
  };
}
