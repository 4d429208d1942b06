import { EVALUATOR_TYPES, re2PatternProblem, responseSchemaProblem, type EvaluatorSpec, type EvaluatorType } from '@waggle/contracts';
import { nestedMessage, WaggleException, type ErrorDetail } from '@waggle/errors';

/** A run has at least one evaluator and at most this many. */
export const EVALUATORS_MAX = 20;
/** A judge's rubric, and the text a `contains` or `similarity` evaluator compares with. */
export const EVALUATOR_TEXT_MAX_CHARS = 10_000;
/** An `exact` evaluator's own value, as JSON. */
export const EVALUATOR_VALUE_MAX_BYTES = 64 * 1024;
/** Names are keys of the results (mean scores, export columns): short and plain. */
export const EVALUATOR_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** An evaluator as a run keeps it: its name filled in. */
export type NamedEvaluatorSpec = EvaluatorSpec & { name: string };

/** One refused field: where (`evaluators[2].threshold`) and why. */
export interface EvaluatorProblem {
  field: string;
  reason: ErrorDetail;
}

/** The fields each type takes besides `type` and `name`, and which of them are required. */
const FIELDS: Readonly<Record<EvaluatorType, { required: readonly string[]; optional: readonly string[] }>> = {
  exact: { required: [], optional: ['value'] },
  contains: { required: [], optional: ['value', 'case_sensitive'] },
  regex: { required: [], optional: ['value'] },
  json_schema: { required: ['schema'], optional: [] },
  similarity: { required: ['threshold'], optional: ['value'] },
  llm_judge: { required: ['rubric', 'model'], optional: [] },
  max_latency_ms: { required: ['value'], optional: [] },
  max_cost: { required: ['value'], optional: [] },
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= max;
}

const textLength = (max: number): ErrorDetail => ({ detail: 'evaluator_text_length', params: { min: 1, max } });

/** What is wrong with one field's value, for the type's rules; undefined when nothing is. */
function fieldProblem(type: EvaluatorType, field: string, value: unknown): ErrorDetail | undefined {
  switch (field) {
    case 'case_sensitive':
      return typeof value === 'boolean' ? undefined : { detail: 'evaluator_boolean' };
    case 'threshold':
      return typeof value === 'number' && value >= 0 && value <= 1
        ? undefined
        : { detail: 'evaluator_number_range', params: { min: 0, max: 1 } };
    case 'rubric':
      return isText(value, EVALUATOR_TEXT_MAX_CHARS) ? undefined : textLength(EVALUATOR_TEXT_MAX_CHARS);
    case 'model':
      return isText(value, 200) ? undefined : textLength(200);
    case 'schema':
      return responseSchemaProblem(value);
    case 'value':
      return valueProblem(type, value);
    default:
      return undefined;
  }
}

function valueProblem(type: EvaluatorType, value: unknown): ErrorDetail | undefined {
  switch (type) {
    case 'exact': {
      const json = JSON.stringify(value);
      if (value === null || json === undefined) return { detail: 'evaluator_field_required' };
      return Buffer.byteLength(json) <= EVALUATOR_VALUE_MAX_BYTES
        ? undefined
        : { detail: 'evaluator_value_too_large', params: { kib: EVALUATOR_VALUE_MAX_BYTES / 1024 } };
    }
    case 'contains':
    case 'similarity':
      return isText(value, EVALUATOR_TEXT_MAX_CHARS) ? undefined : textLength(EVALUATOR_TEXT_MAX_CHARS);
    case 'regex': {
      if (!isText(value, EVALUATOR_TEXT_MAX_CHARS)) return textLength(EVALUATOR_TEXT_MAX_CHARS);
      const problem = re2PatternProblem(value);
      return problem === undefined ? undefined : { detail: 'evaluator_pattern_invalid', params: { reason: problem } };
    }
    case 'max_latency_ms':
    case 'max_cost':
      return typeof value === 'number' && Number.isFinite(value) && value > 0 ? undefined : { detail: 'evaluator_number_positive' };
    default:
      return { detail: 'evaluator_field_unknown', params: { type } };
  }
}

/**
 * A run's evaluator list checked without I/O (the catalog's checks come after, in
 * CellEvaluators.check): its size, each evaluator's type, fields and ranges, patterns and
 * schemas compiled, names unique. Every problem is listed with its field; the specs come back
 * with their names filled in (the type when unnamed) and nothing the type does not take.
 */
export function checkEvaluatorSpecs(input: unknown): { specs: NamedEvaluatorSpec[]; problems: EvaluatorProblem[] } {
  const problems: EvaluatorProblem[] = [];
  if (!Array.isArray(input) || input.length === 0 || input.length > EVALUATORS_MAX) {
    return { specs: [], problems: [{ field: 'evaluators', reason: { detail: 'evaluator_list_size', params: { max: EVALUATORS_MAX } } }] };
  }
  const specs: NamedEvaluatorSpec[] = [];
  const names = new Map<string, number>();
  input.forEach((item: unknown, index) => {
    const at = `evaluators[${index}]`;
    if (!isObject(item)) {
      problems.push({ field: at, reason: { detail: 'evaluator_not_object' } });
      return;
    }
    const type = item.type;
    if (typeof type !== 'string' || !(EVALUATOR_TYPES as readonly string[]).includes(type)) {
      problems.push({ field: `${at}.type`, reason: { detail: 'evaluator_type_unknown', params: { types: EVALUATOR_TYPES.join(', ') } } });
      return;
    }
    const known = FIELDS[type as EvaluatorType];
    const before = problems.length;
    for (const key of Object.keys(item)) {
      if (key === 'type' || key === 'name' || known.required.includes(key) || known.optional.includes(key)) continue;
      problems.push({ field: `${at}.${key}`, reason: { detail: 'evaluator_field_unknown', params: { type } } });
    }
    for (const key of known.required) {
      if (item[key] === undefined) problems.push({ field: `${at}.${key}`, reason: { detail: 'evaluator_field_required' } });
    }
    for (const key of [...known.required, ...known.optional]) {
      if (item[key] === undefined) continue;
      const problem = fieldProblem(type as EvaluatorType, key, item[key]);
      if (problem) problems.push({ field: `${at}.${key}`, reason: problem });
    }
    const name = item.name === undefined ? type : item.name;
    if (typeof name !== 'string' || !EVALUATOR_NAME_PATTERN.test(name)) {
      problems.push({ field: `${at}.name`, reason: { detail: 'evaluator_name_invalid' } });
    } else {
      const first = names.get(name);
      if (first !== undefined)
        problems.push({ field: `${at}.name`, reason: { detail: 'evaluator_name_repeated', params: { name, at: `evaluators[${first}]` } } });
      else names.set(name, index);
    }
    if (problems.length > before) return;
    const kept = Object.fromEntries(
      [...known.required, ...known.optional].filter((key) => item[key] !== undefined).map((key) => [key, item[key]]),
    );
    specs.push({ type, name, ...kept } as NamedEvaluatorSpec);
  });
  return { specs, problems };
}

/** 422 validation_error naming the first refused field, every one in `details`. */
export function invalidEvaluators(problems: readonly EvaluatorProblem[]): WaggleException {
  const [first] = problems;
  return new WaggleException('validation_error', {
    detail: 'invalid_evaluator',
    params: { field: first.field, reason: nestedMessage(first.reason) },
    details: problems.map(({ field, reason }) => ({ field, messages: [reason] })),
  });
}
