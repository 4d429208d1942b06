import { Injectable } from '@nestjs/common';
import type { McpPublish, McpToolDescriptor } from '@waggle/contracts';
import { errorMessage, WaggleException, type ErrorDetail } from '@waggle/errors';
import type { DeploymentSpec, VariantSpecShape } from '../deployments/deployment-applier';
import { promptToolDescriptor, promptToolName } from '../prompts/prompt-mcp-tool';
import { PromptsRepository } from '../prompts/prompts.repository';
import { workflowToolDescriptor, workflowToolName } from '../workflows/deployments/workflow-mcp-tool';
import { WorkflowDeploymentsRepository } from '../workflows/deployments/workflow-deployments.repository';

/** The two kinds of deployment this service publishes, named as their apply files' lists are. */
export type PublishingKind = 'prompt' | 'workflow';

const FILE_LIST: Record<PublishingKind, string> = { prompt: 'prompts', workflow: 'workflows' };
const TOOL_NAME: Record<PublishingKind, typeof promptToolName> = { prompt: promptToolName, workflow: workflowToolName };

/** One published variant's tool: which variant of which kind, under which name. */
interface PublishedTool {
  kind: PublishingKind;
  deployment: string;
  variant: string;
  name: string;
}

/**
 * The prompt and workflow variants a workspace publishes as MCP tools (the spec's decisions,
 * MCP): their tools, and their names' uniqueness. A tool name is unique in the workspace: among
 * the variants this service publishes, an apply that would give two of them one name is refused
 * (422 naming the field) before anything is written. Agents and knowledge bases are other
 * services': a clash with them is settled where the tools are listed (the first is kept).
 */
@Injectable()
export class McpToolsService {
  constructor(
    private readonly prompts: PromptsRepository,
    private readonly workflows: WorkflowDeploymentsRepository,
  ) {}

  /** The published variants as tools: prompts, then workflows, each by deployment and variant name. */
  async list(workspaceId: string): Promise<McpToolDescriptor[]> {
    const [prompts, workflows] = await Promise.all([
      this.prompts.publishedVariants(workspaceId),
      this.workflows.publishedVariants(workspaceId),
    ]);
    return [
      ...prompts.flatMap((variant) => promptToolDescriptor(variant) ?? []),
      ...workflows.flatMap((variant) => workflowToolDescriptor(variant) ?? []),
    ];
  }

  /**
   * Checks an apply file of `kind` against the variants the workspace publishes besides the
   * ones the file declares (those it replaces), inside the apply's transaction: the workspace's
   * lock of tool names is held until it ends, so two concurrent applies cannot both take a name.
   */
  async check(workspaceId: string, kind: PublishingKind, specs: ReadonlyArray<DeploymentSpec<VariantSpecShape>>): Promise<void> {
    const declared = specs.flatMap((spec, d) =>
      spec.variants.map((variant, v) => ({
        deployment: spec.deployment,
        variant: variant.name,
        name: TOOL_NAME[kind](spec.deployment, variant.name, variant.publish),
        field: `${FILE_LIST[kind]}[${d}].variants[${v}].publish.tool_name`,
      })),
    );
    if (declared.every((variant) => variant.name === null)) return;
    await this.prompts.lockMcpToolNames(workspaceId);
    const replaced = new Set(declared.map((variant) => JSON.stringify([variant.deployment, variant.variant])));
    const taken = new Map<string, string>();
    for (const tool of await this.published(workspaceId)) {
      if (tool.kind === kind && replaced.has(JSON.stringify([tool.deployment, tool.variant]))) continue;
      taken.set(tool.name, `${FILE_LIST[tool.kind]} ${tool.deployment}/${tool.variant}`);
    }
    for (const variant of declared) {
      if (variant.name === null) continue;
      const owner = taken.get(variant.name);
      if (owner !== undefined) {
        const text: ErrorDetail = { detail: 'mcp_tool_name_taken', params: { name: variant.name } };
        throw new WaggleException('validation_error', {
          ...text,
          details: [{ field: variant.field, messages: [`${errorMessage(text, 'en')} (by ${owner})`] }],
        });
      }
      taken.set(variant.name, `${FILE_LIST[kind]} ${variant.deployment}/${variant.variant}`);
    }
  }

  /** The workspace's published prompt and workflow variants with their tool names (read one after the other: inside the apply's transaction). */
  private async published(workspaceId: string): Promise<PublishedTool[]> {
    const tools = (kind: PublishingKind, variants: Array<{ deployment: string; variant: string; publish: McpPublish }>) =>
      variants.flatMap(({ deployment, variant, publish }) => {
        const name = TOOL_NAME[kind](deployment, variant, publish);
        return name === null ? [] : [{ kind, deployment, variant, name }];
      });
    return [
      ...tools('prompt', await this.prompts.publishedVariants(workspaceId)),
      ...tools('workflow', await this.workflows.publishedVariants(workspaceId)),
    ];
  }
}
