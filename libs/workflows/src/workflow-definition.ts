import {
  CREDENTIAL_SOURCES,
  type CredentialSource,
  KNOWLEDGE_BASE_SEARCH_TYPES,
  MAX_CONTENT_LENGTH,
  MAX_FALLBACKS,
  MCP_SELECTION_LIMITS,
  MCP_SERVER_ID_FORMAT,
  MCP_TOOL_DESCRIPTION_MAX,
  MCP_TOOL_NAME_PATTERN,
  PROMPT_NAME_PATTERN,
  PROMPT_ROLES,
  REASONING_EFFORTS,
  RESPONSE_FORMAT_NAME,
  responseSchemaProblem,
  SEARCH_CHUNK_LIMIT,
  SEARCH_SCORE_THRESHOLD,
  type McpPublish,
  type ResponseFormat,
} from '@waggle/contracts';
import { errorMessage, nestedMessage, type ErrorDetail } from '@waggle/errors';
import { z } from 'zod';

/**
 * A problem of ours found by a refinement: zod's message is its English text, its `params` the
 * message id and parameters, rendered in the reader's language (see Problems in workflow-validation).
 */
function addProblem<T>(context: z.core.$RefinementCtx<T>, path: PropertyKey[], text: ErrorDetail): void {
  context.addIssue({ code: 'custom', path, message: errorMessage(text, 'en'), params: nestedMessage(text) });
}

/** Step ids: what later templates write (`{{ search.output }}`), so Liquid identifiers, lower case. */
export const WORKFLOW_STEP_ID_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Input names: top-level variables of every template. */
export const WORKFLOW_INPUT_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Names neither an input nor a step may take: the loop variables and Liquid's literals. */
export const RESERVED_WORKFLOW_NAMES = [
  'item',
  'index',
  'forloop',
  'tablerowloop',
  'empty',
  'blank',
  'nil',
  'null',
  'true',
  'false',
] as const;

export const WORKFLOW_STEP_TYPES = [
  'prompt',
  'agent',
  'knowledge_search',
  'web_search',
  'scrape',
  'http',
  'template',
  'condition',
  'loop',
  'mcp_tool',
] as const;
export const WORKFLOW_INPUT_TYPES = ['text', 'number', 'boolean', 'json'] as const;
export const ON_ERROR_MODES = ['fail', 'continue'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export const CONDITION_OPS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'not_contains',
  'is_empty',
  'is_not_empty',
  'starts_with',
  'ends_with',
] as const;
/** Ops that take no `right`. */
export const UNARY_CONDITION_OPS: readonly ConditionOp[] = ['is_empty', 'is_not_empty'];

export const WORKFLOW_LIMITS = {
  deployments: 500,
  variantsPerDeployment: 50,
  stepsPerList: 100,
  /** Steps declared in one variant, nested ones included. */
  stepsPerVariant: 200,
  templateLength: MAX_CONTENT_LENGTH,
  maxIterations: { min: 1, max: 1000 },
  concurrency: { min: 1, max: 10, default: 1 },
  numResults: { min: 1, max: 20, default: 5 },
  conditionsPerGroup: 50,
} as const;

export type WorkflowStepType = (typeof WORKFLOW_STEP_TYPES)[number];
export type WorkflowInputType = (typeof WORKFLOW_INPUT_TYPES)[number];
export type OnError = (typeof ON_ERROR_MODES)[number];
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type ConditionOp = (typeof CONDITION_OPS)[number];

export interface WorkflowInput {
  type: WorkflowInputType;
  required: boolean;
  default?: unknown;
}

interface StepBase {
  id: string;
  name?: string;
  on_error: OnError;
}

export interface PromptStepParams {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  reasoning_effort?: (typeof REASONING_EFFORTS)[number];
  thinking_budget?: number;
}

/**
 * Either a model call (`model` + `messages` [+ `params`, `fallbacks`, `response_format`]) or a
 * deployed prompt (`deployment` + `variant` [+ `inputs`]), whose variant carries its own.
 */
export interface PromptStep extends StepBase {
  type: 'prompt';
  model?: string;
  messages?: Array<{ role: (typeof PROMPT_ROLES)[number]; content: string }>;
  params?: PromptStepParams;
  /** Catalog model ids tried in order when `model` is unavailable (D41). */
  fallbacks?: string[];
  /** The JSON Schema the answer must match (D42): the step's output is then the parsed value. */
  response_format?: ResponseFormat;
  /**
   * Whose provider keys the model call uses (the spec's decisions on usage governance): the
   * operator's (`hosted`, the default) or the workspace's own. A deployed prompt's variant, and
   * an agent step's agent, say it themselves.
   */
  credentials?: CredentialSource;
  deployment?: string;
  variant?: string;
  inputs?: Record<string, unknown>;
}

export interface AgentStep extends StepBase {
  type: 'agent';
  agent: string;
  message: string;
  thread_id?: string;
}

export interface KnowledgeSearchStep extends StepBase {
  type: 'knowledge_search';
  knowledge_base: string;
  query: string;
  search_type?: (typeof KNOWLEDGE_BASE_SEARCH_TYPES)[number];
  limit?: number;
  threshold?: number;
}

export interface WebSearchStep extends StepBase {
  type: 'web_search';
  query: string;
  num_results: number;
  country?: string;
}

export interface ScrapeStep extends StepBase {
  type: 'scrape';
  url: string;
}

export interface HttpStep extends StepBase {
  type: 'http';
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One tool of a workspace MCP server (the spec's decisions, MCP); `arguments` templated like an http step's body. */
export interface McpToolStep extends StepBase {
  type: 'mcp_tool';
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface TemplateStep extends StepBase {
  type: 'template';
  text: string;
}

export interface ConditionClause {
  left: unknown;
  op: ConditionOp;
  right?: unknown;
}

/** Exactly one of `all` and `any`. */
export type ConditionWhen = { all: ConditionClause[]; any?: undefined } | { any: ConditionClause[]; all?: undefined };

export interface ConditionStep extends StepBase {
  type: 'condition';
  when: ConditionWhen;
  then: WorkflowStep[];
  else?: WorkflowStep[];
}

export interface LoopStep extends StepBase {
  type: 'loop';
  over: string;
  max_iterations: number;
  concurrency: number;
  steps: WorkflowStep[];
}

export type WorkflowStep =
  | PromptStep
  | AgentStep
  | KnowledgeSearchStep
  | WebSearchStep
  | ScrapeStep
  | HttpStep
  | TemplateStep
  | ConditionStep
  | LoopStep
  | McpToolStep;

export interface WorkflowVariant {
  name: string;
  inputs: Record<string, WorkflowInput>;
  /** A template over the inputs and the top-level steps: the run's output string. */
  output: string;
  steps: WorkflowStep[];
  /**
   * Offered as a tool of the workspace's MCP server (the spec's decisions, MCP). The variant's,
   * not its versions': never part of a stored definition.
   */
  publish?: McpPublish | null;
}

export interface WorkflowDeploymentDefinition {
  deployment: string;
  variants: WorkflowVariant[];
}

const template = z.string().max(WORKFLOW_LIMITS.templateLength);
const requiredTemplate = template.min(1);
const name = z
  .string()
  .regex(PROMPT_NAME_PATTERN, 'must start with a letter or digit, then letters, digits, "_", "." or "-" (at most 100)');

const stepBase = {
  id: z.string().regex(WORKFLOW_STEP_ID_PATTERN, 'must be a lower-case letter, then lower-case letters, digits or "_" (at most 64)'),
  name: z.string().min(1).max(200).optional(),
  on_error: z.enum(ON_ERROR_MODES).default('fail'),
};

const promptParams = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.int().min(1).max(1_000_000).optional(),
  stop: z.array(z.string()).max(4).optional(),
  reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
  thinking_budget: z.int().min(1).max(1_000_000).optional(),
});

/** As the contract's ResponseFormatDto checks a prompt variant's and an agent's. */
const responseFormat = z.strictObject({
  type: z.literal('json_schema'),
  name: z.string().regex(RESPONSE_FORMAT_NAME, 'must be 1 to 64 letters, digits, "_" or "-"').optional(),
  schema: z.record(z.string(), z.unknown()).superRefine((schema, context) => {
    const problem = responseSchemaProblem(schema);
    if (problem) context.addIssue({ code: 'custom', message: errorMessage(problem, 'en') });
  }),
  strict: z.boolean().optional(),
});

const promptStep = z
  .strictObject({
    ...stepBase,
    type: z.literal('prompt'),
    model: z.string().min(1).max(200).optional(),
    messages: z
      .array(z.strictObject({ role: z.enum(PROMPT_ROLES), content: template }))
      .min(1)
      .max(100)
      .optional(),
    params: promptParams.optional(),
    fallbacks: z.array(z.string().min(1).max(200)).max(MAX_FALLBACKS).optional(),
    response_format: responseFormat.optional(),
    credentials: z.enum(CREDENTIAL_SOURCES).optional(),
    deployment: name.optional(),
    variant: name.optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((step, context) => {
    const problem = (path: string, text: ErrorDetail) => addProblem(context, [path], text);
    const model = { field: 'model', other: 'deployment' };
    const deployment = { field: 'deployment', other: 'model' };
    if (step.model !== undefined && step.deployment !== undefined) problem('deployment', { detail: 'workflow_prompt_both' });
    else if (step.model !== undefined) {
      if (step.messages === undefined) problem('messages', { detail: 'workflow_field_required_with', params: { field: 'model' } });
      if (step.variant !== undefined) problem('variant', { detail: 'workflow_field_goes_with', params: deployment });
      if (step.inputs !== undefined) problem('inputs', { detail: 'workflow_prompt_inputs_with_model' });
    } else if (step.deployment !== undefined) {
      if (step.variant === undefined) problem('variant', { detail: 'workflow_field_required_with', params: { field: 'deployment' } });
      if (step.messages !== undefined) problem('messages', { detail: 'workflow_field_goes_with', params: model });
      if (step.params !== undefined) problem('params', { detail: 'workflow_field_goes_with', params: model });
      // The deployed variant names its own fallbacks and response format.
      if (step.fallbacks !== undefined) problem('fallbacks', { detail: 'workflow_prompt_variant_sets' });
      if (step.response_format !== undefined) problem('response_format', { detail: 'workflow_prompt_variant_sets' });
      if (step.credentials !== undefined) problem('credentials', { detail: 'workflow_prompt_variant_sets' });
    } else problem('model', { detail: 'workflow_prompt_neither' });
  });

const agentStep = z.strictObject({
  ...stepBase,
  type: z.literal('agent'),
  agent: z.string().min(1).max(200),
  message: requiredTemplate,
  thread_id: requiredTemplate.optional(),
});

const knowledgeSearchStep = z.strictObject({
  ...stepBase,
  type: z.literal('knowledge_search'),
  knowledge_base: z.string().min(1).max(200),
  query: requiredTemplate,
  search_type: z.enum(KNOWLEDGE_BASE_SEARCH_TYPES).optional(),
  limit: z.int().min(SEARCH_CHUNK_LIMIT.min).max(SEARCH_CHUNK_LIMIT.max).optional(),
  threshold: z.number().min(SEARCH_SCORE_THRESHOLD.min).max(SEARCH_SCORE_THRESHOLD.max).optional(),
});

const webSearchStep = z.strictObject({
  ...stepBase,
  type: z.literal('web_search'),
  query: requiredTemplate,
  num_results: z.int().min(WORKFLOW_LIMITS.numResults.min).max(WORKFLOW_LIMITS.numResults.max).default(WORKFLOW_LIMITS.numResults.default),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code')
    .optional(),
});

const scrapeStep = z.strictObject({ ...stepBase, type: z.literal('scrape'), url: requiredTemplate });

const httpStep = z.strictObject({
  ...stepBase,
  type: z.literal('http'),
  method: z.enum(HTTP_METHODS),
  url: requiredTemplate,
  headers: z.record(z.string().min(1).max(200), template).optional(),
  body: z.unknown().optional(),
});

const mcpToolStep = z.strictObject({
  ...stepBase,
  type: z.literal('mcp_tool'),
  server: z.string().regex(MCP_SERVER_ID_FORMAT, 'must be 1 to 24 lower-case letters, digits, "_" or "-"'),
  tool: z.string().min(1).max(MCP_SELECTION_LIMITS.toolNameLength),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

const templateStep = z.strictObject({ ...stepBase, type: z.literal('template'), text: template });

const clause = z
  .strictObject({ left: z.unknown(), op: z.enum(CONDITION_OPS), right: z.unknown().optional() })
  .superRefine((value, context) => {
    const unary = UNARY_CONDITION_OPS.includes(value.op);
    if (unary && value.right !== undefined)
      addProblem(context, ['right'], { detail: 'workflow_clause_right_unused', params: { op: value.op } });
    if (!unary && value.right === undefined)
      addProblem(context, ['right'], { detail: 'workflow_clause_right_required', params: { op: value.op } });
  });
const clauses = z.array(clause).min(1).max(WORKFLOW_LIMITS.conditionsPerGroup);
const when = z.strictObject({ all: clauses.optional(), any: clauses.optional() }).superRefine((value, context) => {
  if ((value.all === undefined) === (value.any === undefined)) addProblem(context, [], { detail: 'workflow_when_one_group' });
});

// Condition and loop steps hold step lists: the schema is recursive, its type written out above.
const stepList = z.lazy(() => z.array(workflowStep).min(1).max(WORKFLOW_LIMITS.stepsPerList)) as unknown as z.ZodType<WorkflowStep[]>;

const conditionStep = z.strictObject({ ...stepBase, type: z.literal('condition'), when, then: stepList, else: stepList.optional() });

const loopStep = z.strictObject({
  ...stepBase,
  type: z.literal('loop'),
  over: requiredTemplate,
  max_iterations: z.int().min(WORKFLOW_LIMITS.maxIterations.min).max(WORKFLOW_LIMITS.maxIterations.max),
  concurrency: z
    .int()
    .min(WORKFLOW_LIMITS.concurrency.min)
    .max(WORKFLOW_LIMITS.concurrency.max)
    .default(WORKFLOW_LIMITS.concurrency.default),
  steps: stepList,
});

const workflowStep = z.discriminatedUnion(
  'type',
  [promptStep, agentStep, knowledgeSearchStep, webSearchStep, scrapeStep, httpStep, templateStep, conditionStep, loopStep, mcpToolStep],
  { error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${WORKFLOW_STEP_TYPES.join(', ')}`) },
);

const workflowInput = z
  .strictObject({ type: z.enum(WORKFLOW_INPUT_TYPES), required: z.boolean().default(false), default: z.unknown().optional() })
  .superRefine((input, context) => {
    if (input.default === undefined) return;
    if (input.required) addProblem(context, ['default'], { detail: 'workflow_input_default_required' });
    const expected = { text: 'string', number: 'number', boolean: 'boolean', json: undefined }[input.type];
    if (expected !== undefined && typeof input.default !== expected)
      addProblem(context, ['default'], { detail: 'workflow_input_default_type', params: { type: input.type } });
  });

/** As the contract's McpPublishDto checks a prompt variant's and an agent's. */
const publish = z.strictObject({
  mcp: z.boolean(),
  tool_name: z.string().regex(MCP_TOOL_NAME_PATTERN, 'must be 1 to 40 lower-case letters, digits or "_"').optional(),
  description: z.string().max(MCP_TOOL_DESCRIPTION_MAX).optional(),
});

export const workflowVariantSchema = z.strictObject({
  name,
  inputs: z
    .record(
      z
        .string()
        .regex(
          WORKFLOW_INPUT_NAME_PATTERN,
          'input names are Liquid identifiers: a letter or "_", then letters, digits or "_" (at most 64)',
        ),
      workflowInput,
    )
    .default({}),
  output: template,
  steps: stepList,
  publish: publish.nullable().optional(),
});

const workflowDeployment = z.strictObject({
  deployment: name,
  // Variants are checked one by one (see validateWorkflowDefinitions), so one bad variant does not hide the others' reference problems.
  variants: z.array(z.unknown()).min(1).max(WORKFLOW_LIMITS.variantsPerDeployment),
});

export const workflowFileSchema = z.strictObject({
  workflows: z.array(workflowDeployment).max(WORKFLOW_LIMITS.deployments),
});
