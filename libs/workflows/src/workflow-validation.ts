import { errorMessage, isErrorMessageId, nestedMessage, type NestedMessage } from '@waggle/errors';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import {
  RESERVED_WORKFLOW_NAMES,
  WORKFLOW_LIMITS,
  workflowFileSchema,
  workflowVariantSchema,
  type WorkflowDeploymentDefinition,
  type WorkflowStep,
  type WorkflowVariant,
} from './workflow-definition';
import { templateRoots } from './workflow-template';

/** One field's problems, as the project's 422 `details` carry them. */
export interface DefinitionProblem {
  field: string;
  messages: string[];
  /**
   * The same problems as message ids (index-aligned with `messages`), rendered in the reader's
   * language; a string is zod's own English text. Not part of the 422 `details`.
   */
  reasons: Array<NestedMessage | string>;
}

export type WorkflowValidation =
  | { ok: true; workflows: WorkflowDeploymentDefinition[] }
  | { ok: false; problems: DefinitionProblem[]; /** True when some problem is a required field left out. */ missing: boolean };

export interface WorkflowCheckOptions {
  /** Whether a model id is in the catalog (the apply path passes the catalog lookup). */
  isKnownModel: (modelId: string) => Promise<boolean>;
}

type Path = Array<string | number>;

/** `['workflows', 0, 'variants', 1, 'url']` → `workflows[0].variants[1].url`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (field, key) => (typeof key === 'number' ? `${field}[${key}]` : field ? `${field}.${String(key)}` : String(key)),
    '',
  );
}

class Problems {
  private readonly byField = new Map<string, { messages: string[]; reasons: Array<NestedMessage | string> }>();
  missing = false;

  add(path: Path | string, reason: NestedMessage | string): void {
    const field = typeof path === 'string' ? path : fieldPath(path);
    const message = typeof reason === 'string' ? reason : errorMessage(reason, 'en');
    const problem = this.byField.get(field) ?? { messages: [], reasons: [] };
    if (!problem.messages.includes(message)) {
      problem.messages.push(message);
      problem.reasons.push(reason);
    }
    this.byField.set(field, problem);
  }

  addZod(error: z.ZodError, prefix: Path): void {
    for (const issue of error.issues) {
      const path = [...prefix, ...(issue.path as Path)];
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) this.add([...path, key], { detail: 'workflow_field_unknown' });
        continue;
      }
      const missing = issue.code === 'invalid_type' && issue.input === undefined;
      if (missing) this.missing = true;
      // A refinement's problem of ours carries its message id in params; zod's own texts stay English.
      const ours = issue.code === 'custom' && isErrorMessageId((issue.params as { detail?: unknown } | undefined)?.detail);
      this.add(path, missing ? { detail: 'workflow_field_required' } : ours ? (issue.params as NestedMessage) : issue.message);
    }
  }

  list(): DefinitionProblem[] {
    return [...this.byField].map(([field, problem]) => ({ field, ...problem }));
  }

  get empty(): boolean {
    return this.byField.size === 0;
  }
}

function problemOf(message: string): DefinitionProblem {
  return { field: '', messages: [message], reasons: [message] };
}

/** A YAML definition file's text as data; a syntax error is a problem of the whole file (field ""). */
export function parseWorkflowYaml(text: string): { ok: true; value: unknown } | { ok: false; problems: DefinitionProblem[] } {
  try {
    return { ok: true, value: parseYaml(text) as unknown };
  } catch (error) {
    return {
      ok: false,
      // The YAML parser's own text, English (the CLI prints it before anything is sent).
      problems: [problemOf(`not valid YAML: ${error instanceof Error ? error.message : String(error)}`)],
    };
  }
}

/**
 * Checks a definition file's data (`{ workflows: [...] }`) without I/O: its shape, names
 * repeated, step ids, and every template's references. Every problem is listed, each with
 * its path (`workflows[0].variants[0].steps[2].url`).
 */
export function parseWorkflowDefinitions(input: unknown): WorkflowValidation {
  const problems = new Problems();
  const file = workflowFileSchema.safeParse(input, { reportInput: true });
  if (!file.success) {
    problems.addZod(file.error, []);
    if (input === null || typeof input !== 'object' || !Array.isArray((input as { workflows?: unknown }).workflows))
      return { ok: false, problems: problems.list(), missing: problems.missing };
  }
  const raw = (input as { workflows: unknown[] }).workflows;
  const workflows: WorkflowDeploymentDefinition[] = [];
  const deploymentNames = new Map<string, number>();
  raw.forEach((deployment, d) => {
    if (deployment === null || typeof deployment !== 'object') return;
    const { deployment: deploymentName, variants } = deployment as { deployment?: unknown; variants?: unknown };
    if (typeof deploymentName === 'string') {
      const first = deploymentNames.get(deploymentName);
      if (first !== undefined)
        problems.add(
          ['workflows', d, 'deployment'],
          nestedMessage({ detail: 'workflow_deployment_repeated', params: { name: deploymentName, at: `workflows[${first}]` } }),
        );
      else deploymentNames.set(deploymentName, d);
    }
    if (!Array.isArray(variants)) return;
    const parsed: WorkflowVariant[] = [];
    const variantNames = new Map<string, number>();
    variants.forEach((variant: unknown, v) => {
      const prefix: Path = ['workflows', d, 'variants', v];
      const result = workflowVariantSchema.safeParse(variant, { reportInput: true });
      if (!result.success) {
        problems.addZod(result.error, prefix);
        return;
      }
      const first = variantNames.get(result.data.name);
      if (first !== undefined)
        problems.add(
          [...prefix, 'name'],
          nestedMessage({
            detail: 'workflow_variant_repeated',
            params: { name: result.data.name, at: `workflows[${d}].variants[${first}]` },
          }),
        );
      else variantNames.set(result.data.name, v);
      checkVariant(result.data as WorkflowVariant, prefix, problems);
      parsed.push(result.data as WorkflowVariant);
    });
    if (typeof deploymentName === 'string') workflows.push({ deployment: deploymentName, variants: parsed });
  });
  return problems.empty ? { ok: true, workflows } : { ok: false, problems: problems.list(), missing: problems.missing };
}

/** parseWorkflowDefinitions, then every `model` checked against the catalog (each id asked once). */
export async function validateWorkflowDefinitions(input: unknown, options: WorkflowCheckOptions): Promise<WorkflowValidation> {
  const parsed = parseWorkflowDefinitions(input);
  if (!parsed.ok) return parsed;
  const problems = new Problems();
  const known = new Map<string, Promise<boolean>>();
  const isKnown = (model: string) => {
    let answer = known.get(model);
    if (!answer) known.set(model, (answer = options.isKnownModel(model)));
    return answer;
  };
  const checks: Array<Promise<void>> = [];
  parsed.workflows.forEach((deployment, d) =>
    deployment.variants.forEach((variant, v) =>
      walkSteps(variant.steps, ['workflows', d, 'variants', v, 'steps'], (step, path) => {
        if (step.type === 'prompt' && step.model !== undefined) {
          const model = step.model;
          checks.push(
            isKnown(model).then((ok) => {
              if (!ok) problems.add([...path, 'model'], nestedMessage({ detail: 'workflow_model_unknown', params: { model } }));
            }),
          );
        }
      }),
    ),
  );
  await Promise.all(checks);
  return problems.empty ? parsed : { ok: false, problems: problems.list(), missing: false };
}

/** Visits every step, nested ones included, in the fixed order, with its path. */
export function walkSteps(steps: WorkflowStep[], path: Path, visit: (step: WorkflowStep, path: Path) => void): void {
  steps.forEach((step, index) => {
    const stepPath = [...path, index];
    visit(step, stepPath);
    if (step.type === 'condition') {
      walkSteps(step.then, [...stepPath, 'then'], visit);
      if (step.else) walkSteps(step.else, [...stepPath, 'else'], visit);
    } else if (step.type === 'loop') walkSteps(step.steps, [...stepPath, 'steps'], visit);
  });
}

/**
 * The most steps one run of the variant can execute: each step once, a condition's longer
 * branch, a loop's body once per iteration up to `max_iterations` (condition and loop steps
 * count themselves too).
 */
export function maxStepsPerRun(steps: WorkflowStep[]): number {
  return steps.reduce((total, step) => {
    if (step.type === 'condition') return total + 1 + Math.max(maxStepsPerRun(step.then), maxStepsPerRun(step.else ?? []));
    if (step.type === 'loop') return total + 1 + step.max_iterations * maxStepsPerRun(step.steps);
    return total + 1;
  }, 0);
}

/** The ids a step makes visible to the steps after it: its own, and for a condition those of both branches' top level (whichever ran). */
function exportedIds(step: WorkflowStep): string[] {
  if (step.type !== 'condition') return [step.id];
  return [step.id, ...step.then.flatMap(exportedIds), ...(step.else ?? []).flatMap(exportedIds)];
}

/**
 * Ids in a step list (nested ones included), each with where it is first declared. Ids are
 * unique within a variant, except that a condition's `then` and `else` may reuse one (only
 * one of them runs).
 */
function declaredIds(steps: WorkflowStep[], path: Path, problems: Problems): Map<string, Path> {
  const ids = new Map<string, Path>();
  const merge = (from: Map<string, Path>) => {
    for (const [id, at] of from) {
      const first = ids.get(id);
      if (first) problems.add([...at, 'id'], nestedMessage({ detail: 'workflow_step_id_repeated', params: { id, at: fieldPath(first) } }));
      else ids.set(id, at);
    }
  };
  steps.forEach((step, index) => {
    const stepPath = [...path, index];
    const own = new Map<string, Path>([[step.id, stepPath]]);
    if (step.type === 'condition') {
      const branches = declaredIds(step.then, [...stepPath, 'then'], problems);
      for (const [id, at] of declaredIds(step.else ?? [], [...stepPath, 'else'], problems)) if (!branches.has(id)) branches.set(id, at);
      for (const [id, at] of branches) {
        if (id === step.id)
          problems.add([...at, 'id'], nestedMessage({ detail: 'workflow_step_id_repeated', params: { id, at: fieldPath(stepPath) } }));
        else own.set(id, at);
      }
    } else if (step.type === 'loop') {
      for (const [id, at] of declaredIds(step.steps, [...stepPath, 'steps'], problems)) {
        if (id === step.id)
          problems.add([...at, 'id'], nestedMessage({ detail: 'workflow_step_id_repeated', params: { id, at: fieldPath(stepPath) } }));
        else own.set(id, at);
      }
    }
    merge(own);
  });
  return ids;
}

/** The fields of a step that are templates, each with its path below the step (values walked recursively). */
function templateFields(step: WorkflowStep): Array<[Path, unknown]> {
  switch (step.type) {
    case 'prompt':
      return [
        ...(step.messages ?? []).map((message, index): [Path, unknown] => [['messages', index, 'content'], message.content]),
        [['inputs'], step.inputs],
      ];
    case 'agent':
      return [
        [['message'], step.message],
        [['thread_id'], step.thread_id],
      ];
    case 'knowledge_search':
    case 'web_search':
      return [[['query'], step.query]];
    case 'scrape':
      return [[['url'], step.url]];
    case 'http':
      return [
        [['url'], step.url],
        [['headers'], step.headers],
        [['body'], step.body],
      ];
    case 'template':
      return [[['text'], step.text]];
    case 'mcp_tool':
      return [[['arguments'], step.arguments]];
    case 'condition': {
      const group = step.when.all ? 'all' : 'any';
      return (step.when.all ?? step.when.any ?? []).flatMap((clause, index): Array<[Path, unknown]> => [
        [['when', group, index, 'left'], clause.left],
        [['when', group, index, 'right'], clause.right],
      ]);
    }
    case 'loop':
      return [[['over'], step.over]];
  }
}

interface ReferenceScope {
  /** Ids of steps that have run when this point is reached. */
  visible: Set<string>;
  inLoop: boolean;
}

interface VariantContext {
  inputs: Set<string>;
  allIds: Set<string>;
  problems: Problems;
}

function checkTemplates(value: unknown, path: Path, scope: ReferenceScope, context: VariantContext): void {
  if (typeof value === 'string') {
    let roots: string[];
    try {
      roots = templateRoots(value);
    } catch (error) {
      context.problems.add(
        path,
        nestedMessage({ detail: 'workflow_template_invalid', params: { reason: error instanceof Error ? error.message : String(error) } }),
      );
      return;
    }
    for (const root of roots) {
      if (context.inputs.has(root) || scope.visible.has(root)) continue;
      if (root === 'item' || root === 'index') {
        if (!scope.inLoop) context.problems.add(path, nestedMessage({ detail: 'workflow_reference_loop_only', params: { root } }));
      } else if (context.allIds.has(root)) {
        context.problems.add(path, nestedMessage({ detail: 'workflow_reference_later', params: { root } }));
      } else context.problems.add(path, nestedMessage({ detail: 'workflow_reference_unknown', params: { root } }));
    }
  } else if (Array.isArray(value)) value.forEach((element, index) => checkTemplates(element, [...path, index], scope, context));
  else if (value !== null && typeof value === 'object')
    for (const [key, element] of Object.entries(value)) checkTemplates(element, [...path, key], scope, context);
}

function checkReferences(steps: WorkflowStep[], path: Path, scope: ReferenceScope, context: VariantContext): void {
  steps.forEach((step, index) => {
    const stepPath = [...path, index];
    for (const [field, value] of templateFields(step)) checkTemplates(value, [...stepPath, ...field], scope, context);
    if (step.type === 'condition') {
      checkReferences(step.then, [...stepPath, 'then'], { visible: new Set(scope.visible), inLoop: scope.inLoop }, context);
      if (step.else) checkReferences(step.else, [...stepPath, 'else'], { visible: new Set(scope.visible), inLoop: scope.inLoop }, context);
    } else if (step.type === 'loop') {
      checkReferences(step.steps, [...stepPath, 'steps'], { visible: new Set(scope.visible), inLoop: true }, context);
    }
    for (const id of exportedIds(step)) scope.visible.add(id);
  });
}

function checkVariant(variant: WorkflowVariant, prefix: Path, problems: Problems): void {
  const inputs = new Set(Object.keys(variant.inputs));
  for (const input of inputs) {
    if ((RESERVED_WORKFLOW_NAMES as readonly string[]).includes(input))
      problems.add([...prefix, 'inputs', input], nestedMessage({ detail: 'workflow_name_reserved', params: { name: input } }));
  }
  let declared = 0;
  walkSteps(variant.steps, [...prefix, 'steps'], (step, path) => {
    declared += 1;
    if ((RESERVED_WORKFLOW_NAMES as readonly string[]).includes(step.id))
      problems.add([...path, 'id'], nestedMessage({ detail: 'workflow_name_reserved', params: { name: step.id } }));
    else if (inputs.has(step.id))
      problems.add([...path, 'id'], nestedMessage({ detail: 'workflow_step_is_input', params: { id: step.id } }));
  });
  if (declared > WORKFLOW_LIMITS.stepsPerVariant)
    problems.add(
      [...prefix, 'steps'],
      nestedMessage({ detail: 'workflow_too_many_steps', params: { max: WORKFLOW_LIMITS.stepsPerVariant, count: declared } }),
    );
  const allIds = new Set(declaredIds(variant.steps, [...prefix, 'steps'], problems).keys());
  const context: VariantContext = { inputs, allIds, problems };
  const topLevel: ReferenceScope = { visible: new Set(), inLoop: false };
  checkReferences(variant.steps, [...prefix, 'steps'], topLevel, context);
  checkTemplates(variant.output, [...prefix, 'output'], topLevel, context);
}
