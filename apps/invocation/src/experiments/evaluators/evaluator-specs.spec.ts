import { errorMessage } from '@waggle/errors';
import { checkEvaluatorSpecs, EVALUATORS_MAX, invalidEvaluators } from './evaluator-specs';

/** The refused fields of a list, each with its English message. */
function refusals(input: unknown): Array<[string, string]> {
  return checkEvaluatorSpecs(input).problems.map(({ field, reason }) => [field, errorMessage(reason, 'en')]);
}

describe('checkEvaluatorSpecs', () => {
  it('fills in names (the type) and keeps only the fields of each type', () => {
    const { specs, problems } = checkEvaluatorSpecs([
      { type: 'exact' },
      { type: 'contains', value: 'refund', case_sensitive: true, name: 'mentions-refund' },
      { type: 'regex', value: '^\\d+ days$' },
      { type: 'json_schema', schema: { type: 'object', required: ['a'] } },
      { type: 'similarity', threshold: 0.8 },
      { type: 'llm_judge', rubric: 'Polite and correct.', model: 'gpt-4o-mini' },
      { type: 'max_latency_ms', value: 2000 },
      { type: 'max_cost', value: 0.01 },
    ]);
    expect(problems).toEqual([]);
    expect(specs).toEqual([
      { type: 'exact', name: 'exact' },
      { type: 'contains', name: 'mentions-refund', value: 'refund', case_sensitive: true },
      { type: 'regex', name: 'regex', value: '^\\d+ days$' },
      { type: 'json_schema', name: 'json_schema', schema: { type: 'object', required: ['a'] } },
      { type: 'similarity', name: 'similarity', threshold: 0.8 },
      { type: 'llm_judge', name: 'llm_judge', rubric: 'Polite and correct.', model: 'gpt-4o-mini' },
      { type: 'max_latency_ms', name: 'max_latency_ms', value: 2000 },
      { type: 'max_cost', name: 'max_cost', value: 0.01 },
    ]);
  });

  it('refuses a list that is not 1 to 20 evaluators, naming `evaluators`', () => {
    const message = `must be a list of 1 to ${EVALUATORS_MAX} evaluators`;
    for (const input of [undefined, null, {}, 'exact', [], Array.from({ length: EVALUATORS_MAX + 1 }, () => ({ type: 'exact' }))]) {
      expect(refusals(input)).toEqual([['evaluators', message]]);
    }
    expect(refusals(Array.from({ length: EVALUATORS_MAX }, (_, index) => ({ type: 'exact', name: `e${index}` })))).toEqual([]);
  });

  it('names the evaluator that is not an object or has no known type', () => {
    expect(refusals([{ type: 'exact' }, 'exact', null, [1]])).toEqual([
      ['evaluators[1]', 'must be an object'],
      ['evaluators[2]', 'must be an object'],
      ['evaluators[3]', 'must be an object'],
    ]);
    const types = 'must be one of exact, contains, regex, json_schema, similarity, llm_judge, max_latency_ms, max_cost';
    expect(refusals([{ type: 'fuzzy' }, {}, { type: 3 }])).toEqual([
      ['evaluators[0].type', types],
      ['evaluators[1].type', types],
      ['evaluators[2].type', types],
    ]);
  });

  it('names each required field left out and each field the type does not take', () => {
    expect(refusals([{ type: 'json_schema' }, { type: 'similarity' }, { type: 'llm_judge', rubric: 'x' }, { type: 'max_cost' }])).toEqual([
      ['evaluators[0].schema', 'is required'],
      ['evaluators[1].threshold', 'is required'],
      ['evaluators[2].model', 'is required'],
      ['evaluators[3].value', 'is required'],
    ]);
    expect(
      refusals([
        { type: 'exact', threshold: 0.5 },
        { type: 'max_latency_ms', value: 10, case_sensitive: true },
      ]),
    ).toEqual([
      ['evaluators[0].threshold', 'is not a field of exact evaluators'],
      ['evaluators[1].case_sensitive', 'is not a field of max_latency_ms evaluators'],
    ]);
  });

  it('refuses values out of range, naming the field', () => {
    expect(
      refusals([
        { type: 'similarity', threshold: 1.5 },
        { type: 'similarity', name: 's2', threshold: -0.1 },
        { type: 'similarity', name: 's3', threshold: '0.5' },
        { type: 'max_latency_ms', value: 0 },
        { type: 'max_cost', value: -1 },
        { type: 'max_cost', name: 'c2', value: Number.POSITIVE_INFINITY },
        { type: 'llm_judge', rubric: '', model: 'm' },
        { type: 'llm_judge', name: 'j2', rubric: 'r'.repeat(10_001), model: 'm' },
        { type: 'contains', case_sensitive: 'yes' },
        { type: 'contains', name: 'c3', value: '' },
        { type: 'exact', value: 'x'.repeat(64 * 1024 + 1) },
        { type: 'exact', name: 'e2', value: null },
      ]),
    ).toEqual([
      ['evaluators[0].threshold', 'must be a number from 0 to 1'],
      ['evaluators[1].threshold', 'must be a number from 0 to 1'],
      ['evaluators[2].threshold', 'must be a number from 0 to 1'],
      ['evaluators[3].value', 'must be a number greater than 0'],
      ['evaluators[4].value', 'must be a number greater than 0'],
      ['evaluators[5].value', 'must be a number greater than 0'],
      ['evaluators[6].rubric', 'must be text of 1 to 10000 characters'],
      ['evaluators[7].rubric', 'must be text of 1 to 10000 characters'],
      ['evaluators[8].case_sensitive', 'must be true or false'],
      ['evaluators[9].value', 'must be text of 1 to 10000 characters'],
      ['evaluators[10].value', 'must be at most 64 KiB as JSON'],
      ['evaluators[11].value', 'is required'],
    ]);
    expect(
      refusals([
        { type: 'similarity', threshold: 0 },
        { type: 'similarity', name: 'all', threshold: 1 },
      ]),
    ).toEqual([]);
  });

  it('compiles a regex in RE2 (a backtracking pattern compiles, a broken one is refused with why)', () => {
    expect(refusals([{ type: 'regex', value: '^(a+)+$' }])).toEqual([]);
    const [[field, message]] = refusals([{ type: 'regex', value: '(unclosed' }]);
    expect(field).toBe('evaluators[0].value');
    expect(message).toMatch(/^is not a valid RE2 pattern: .*missing \)/);
    // RE2 has no backreferences: a pattern JavaScript would take is refused.
    expect(refusals([{ type: 'regex', value: '(a)\\1' }])[0][0]).toBe('evaluators[0].value');
  });

  it('compiles a json_schema in Ajv as a response format is', () => {
    expect(refusals([{ type: 'json_schema', schema: 'object' }])).toEqual([
      ['evaluators[0].schema', 'schema must be a JSON Schema object'],
    ]);
    const [[field, message]] = refusals([{ type: 'json_schema', schema: { type: 'nonsense' } }]);
    expect(field).toBe('evaluators[0].schema');
    expect(message).toMatch(/schema/);
  });

  it('refuses names that are not plain or are used twice (an unnamed evaluator is named by its type)', () => {
    expect(
      refusals([
        { type: 'exact', name: '' },
        { type: 'exact', name: 'has space' },
        { type: 'exact', name: 7 },
      ]),
    ).toEqual([
      ['evaluators[0].name', 'must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit'],
      ['evaluators[1].name', 'must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit'],
      ['evaluators[2].name', 'must be 1 to 64 letters, digits, _, . or -, starting with a letter or digit'],
    ]);
    expect(refusals([{ type: 'exact' }, { type: 'contains', name: 'exact' }, { type: 'exact', name: 'other' }, { type: 'exact' }])).toEqual(
      [
        ['evaluators[1].name', 'exact is already the name of evaluators[0]'],
        ['evaluators[3].name', 'exact is already the name of evaluators[0]'],
      ],
    );
  });

  it('answers 422 validation_error naming the first field in the message and every field in details, in Spanish too', () => {
    const { problems } = checkEvaluatorSpecs([{ type: 'exact' }, { type: 'similarity', threshold: 2 }, { type: 'max_cost' }]);
    const error = invalidEvaluators(problems);
    expect(error).toMatchObject({ code: 'validation_error', status: 422 });
    expect(error.message).toBe('Invalid evaluator evaluators[1].threshold: must be a number from 0 to 1');
    expect(error.messageIn('es')).toBe('Evaluador no válido evaluators[1].threshold: debe ser un número de 0 a 1');
    expect(error.details).toEqual([
      { field: 'evaluators[1].threshold', messages: [{ detail: 'evaluator_number_range', params: { min: 0, max: 1 } }] },
      { field: 'evaluators[2].value', messages: [{ detail: 'evaluator_field_required' }] },
    ]);
  });
});
