import { WaggleException } from '@waggle/errors';
import type { WorkflowInput, WorkflowVariant } from '@waggle/workflows';

/** Checks the caller's inputs against the variant's declared ones: every required one given, each of its type. */
export function checkInputs(definition: WorkflowVariant, inputs: Record<string, unknown>): void {
  const missing = Object.entries(definition.inputs).filter(
    ([name, input]) => input.required && (inputs[name] === undefined || inputs[name] === null),
  );
  if (missing.length > 0) {
    throw new WaggleException('missing_required_field', {
      detail: 'missing_required_inputs',
      params: { fields: missing.map(([name]) => `inputs.${name}`).join(', ') },
      details: missing.map(([name]) => ({ field: `inputs.${name}`, messages: ['is required by the workflow variant'] })),
    });
  }
  const wrong: Array<{ field: string; messages: string[] }> = [];
  for (const [name, input] of Object.entries(definition.inputs) as Array<[string, WorkflowInput]>) {
    const value = inputs[name];
    if (value === undefined || value === null || input.type === 'json') continue;
    const expected = { text: 'string', number: 'number', boolean: 'boolean' }[input.type];
    if (typeof value !== expected) wrong.push({ field: `inputs.${name}`, messages: [`must be a ${input.type} value`] });
  }
  if (wrong.length > 0)
    throw new WaggleException('validation_error', {
      detail: 'invalid_inputs',
      params: { fields: wrong.map((problem) => problem.field).join(', ') },
      details: wrong,
    });
}
