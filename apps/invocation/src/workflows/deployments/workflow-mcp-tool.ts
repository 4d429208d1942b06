import { defaultMcpToolName, mcpToolNameOf, type McpObjectSchema, type McpPublish, type McpToolDescriptor } from '@waggle/contracts';
import type { WorkflowInputType, WorkflowVariant } from '@waggle/workflows';
import type { PublishedVariant } from '../../deployments/deployment.repository';
import type { WorkflowVersionEntity } from './entities/workflow-version.entity';

/** A published workflow variant's tool name (`publish.tool_name`, else `workflow_<deployment>_<variant>` normalized), else null. */
export function workflowToolName(deployment: string, variant: string, publish: McpPublish | null | undefined): string | null {
  return mcpToolNameOf(publish, () => defaultMcpToolName('workflow', deployment, variant));
}

/** A declared input's JSON Schema type (`json`: any JSON value, no type). */
const INPUT_SCHEMAS: Record<WorkflowInputType, Record<string, unknown>> = {
  text: { type: 'string' },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
  json: { description: 'Any JSON value' },
};

/** `{{ <step>.output }}`, nothing else: the output is that step's output as it is. */
const ONE_STEP_OUTPUT = /^\s*\{\{-?\s*([a-z][a-z0-9_]{0,63})\.output\s*-?\}\}\s*$/;

/**
 * The JSON Schema of a workflow's output, where it is determinable: an output that is exactly
 * `{{ step.output }}` of a top-level `prompt` step whose response format's schema is an object
 * (the step's output is then the parsed answer, printed as JSON). Null otherwise: the output is text.
 */
export function workflowOutputSchema(definition: WorkflowVariant): McpObjectSchema | null {
  const stepId = ONE_STEP_OUTPUT.exec(definition.output)?.[1];
  const step = stepId === undefined ? undefined : definition.steps.find((candidate) => candidate.id === stepId);
  if (step?.type !== 'prompt' || step.model === undefined) return null;
  const schema = step.response_format?.schema;
  return schema?.type === 'object' ? (schema as McpObjectSchema) : null;
}

/**
 * A published workflow variant as an MCP tool (the spec's decisions, MCP, "exposed tools"): its
 * declared inputs are the arguments (types mapped, required kept, defaults as `default`); its
 * output is text, or structured where workflowOutputSchema can tell its schema.
 */
export function workflowToolDescriptor(published: PublishedVariant<WorkflowVersionEntity>): McpToolDescriptor | null {
  const definition = published.currentVersion?.definition;
  const name = workflowToolName(published.deployment, published.variant, published.publish);
  if (!definition || name === null) return null;
  const inputs = Object.entries(definition.inputs);
  return {
    name,
    description: published.publish.description ?? `Runs the workflow "${published.deployment}" (variant "${published.variant}").`,
    input_schema: {
      type: 'object',
      properties: Object.fromEntries(
        inputs.map(([input, declared]) => [
          input,
          { ...INPUT_SCHEMAS[declared.type], ...(declared.default !== undefined && { default: declared.default }) },
        ]),
      ),
      required: inputs.filter(([, declared]) => declared.required).map(([input]) => input),
      additionalProperties: false,
    },
    output_schema: workflowOutputSchema(definition),
    target: { kind: 'workflow', deployment: published.deployment, variant: published.variant },
  };
}
