import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { CreateAgentRequest, UpdateAgentRequest } from './agent.patterns';
import { ApplyPromptsRequest } from './invocation.patterns';
import { answerViolations, RESPONSE_SCHEMA_MAX_BYTES, responseSchemaProblem } from './response-format';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
const FORMAT = { type: 'json_schema', name: 'reply', schema: SCHEMA, strict: true };

/** Every failing field as "path: constraint message", the way the validation pipes report them. */
function problems(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => `${field}: ${constraint}: ${message}`);
    return [...own, ...problems(error.children ?? [], field)];
  });
}

const validate = (request: object) => problems(validateSync(request, { whitelist: true, forbidNonWhitelisted: true }));

/** A prompt variant with `extra`, as `apply` receives it. */
function checkVariant(extra: Record<string, unknown>): string[] {
  const variant = { name: 'default', model: 'gpt-6-luna', messages: [{ role: 'user', content: 'Hi' }], ...extra };
  const request = plainToInstance(ApplyPromptsRequest, { workspace_id: WORKSPACE, prompts: [{ deployment: 'd', variants: [variant] }] });
  return validate(request).map((problem) => problem.replace('prompts.0.variants.0.', ''));
}

function checkCreate(extra: Record<string, unknown>): string[] {
  const agent = { name: 'Support', llm_model: 'gpt-6-luna', model_type: 'llm', ...extra };
  return validate(plainToInstance(CreateAgentRequest, { workspace_id: WORKSPACE, agent })).map((problem) => problem.replace('agent.', ''));
}

function checkUpdate(agent: Record<string, unknown>): string[] {
  return validate(plainToInstance(UpdateAgentRequest, { workspace_id: WORKSPACE, agent_id: 'any', agent })).map((problem) =>
    problem.replace('agent.', ''),
  );
}

/** The same fields are checked alike on a prompt variant, an agent's create and its update. */
const SURFACES: Array<[string, (extra: Record<string, unknown>) => string[]]> = [
  ['a prompt variant', checkVariant],
  ['an agent create', checkCreate],
  ['an agent update', checkUpdate],
];

describe.each(SURFACES)('fallbacks and response_format on %s (decisions D41, D42)', (_surface, check) => {
  it('takes up to three fallbacks and a json_schema response format', () => {
    expect(check({ fallbacks: ['claude-haiku-5-5', 'gemini-3.8-flash', 'mistral-small-latest'], response_format: FORMAT })).toEqual([]);
    expect(check({ fallbacks: [], response_format: { type: 'json_schema', schema: SCHEMA } })).toEqual([]);
  });

  it('refuses a fourth fallback, an empty id and a list that is not of strings', () => {
    expect(check({ fallbacks: ['a', 'b', 'c', 'd'] })).toEqual(['fallbacks: arrayMaxSize: fallbacks must contain no more than 3 elements']);
    expect(check({ fallbacks: [''] })).toEqual([expect.stringMatching(/^fallbacks: isLength: /)]);
    expect(check({ fallbacks: 'claude-haiku-5-5' })).toEqual(expect.arrayContaining([expect.stringMatching(/^fallbacks: isArray: /)]));
  });

  it('refuses a schema that is not a JSON Schema, saying why', () => {
    expect(check({ response_format: { ...FORMAT, schema: { type: 'objekt' } } })).toEqual([
      expect.stringMatching(/^response_format\.schema: isResponseSchema: schema is not a valid JSON Schema \(draft 2020-12\): .*type/),
    ]);
    expect(check({ response_format: { ...FORMAT, schema: ['not', 'an', 'object'] } })).toEqual([
      'response_format.schema: isResponseSchema: schema must be a JSON Schema object',
    ]);
    expect(check({ response_format: { type: 'json_schema' } })).toEqual([
      'response_format.schema: isResponseSchema: schema must be a JSON Schema object',
    ]);
  });

  it('refuses a schema over 64 KiB of JSON', () => {
    const big = { type: 'object', description: 'x'.repeat(RESPONSE_SCHEMA_MAX_BYTES) };
    expect(check({ response_format: { ...FORMAT, schema: big } })).toEqual([
      'response_format.schema: isResponseSchema: schema may be at most 64 KiB of JSON',
    ]);
  });

  it('refuses a name the providers would not take, another type, and unknown fields', () => {
    for (const name of ['has space', '', 'x'.repeat(65), 'émoji'])
      expect(check({ response_format: { ...FORMAT, name } })).toEqual([expect.stringMatching(/^response_format\.name: matches: /)]);
    expect(check({ response_format: { ...FORMAT, type: 'json_object' } })).toEqual([
      expect.stringMatching(/^response_format\.type: isIn: /),
    ]);
    expect(check({ response_format: { ...FORMAT, strict: 'yes' } })).toEqual([
      expect.stringMatching(/^response_format\.strict: isBoolean: /),
    ]);
    expect(check({ response_format: { ...FORMAT, format: 'json' } })).toEqual([
      'response_format.format: whitelistValidation: property format should not exist',
    ]);
  });

  it('compiles a pattern that would backtrack in a RegExp (RE2 matches it in linear time)', () => {
    const schema = { type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } } };
    expect(check({ response_format: { ...FORMAT, schema } })).toEqual([]);
    const format = { type: 'json_schema' as const, schema };
    expect(answerViolations(format, JSON.stringify({ word: 'aaaa' }))).toEqual([]);
    expect(answerViolations(format, JSON.stringify({ word: `${'a'.repeat(40)}!` }))).toEqual([
      { path: '/word', message: 'must match pattern "^(a+)+$"' },
    ]);
  });
});

describe('fallbacks and response_format on an agent update', () => {
  it('lets null unset either', () => {
    expect(checkUpdate({ fallbacks: null, response_format: null })).toEqual([]);
  });
});

describe('RE2 patterns of response formats (re2-wasm keeps them in a fixed 16 MiB heap)', () => {
  /** A schema of its own (by `index`) whose patterns make a sizeable RE2 program each, one with named groups. */
  function distinctSchema(index: number): Record<string, unknown> {
    return {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: `^(?<kind>row|col) ${index} (done|failed)[a-z]{0,40}$` },
        note: { type: 'string', pattern: `^${index}[a-z0-9 ]{0,60}$` },
      },
      patternProperties: { [`^x_${index}_[a-z]{1,30}$`]: { type: 'integer' } },
      required: ['code'],
    };
  }

  it('frees the patterns of validators the cache drops: many more distinct formats than it holds, then a new one validates', () => {
    // Unfreed, the patterns of about 650 such schemas fill the heap and every later compilation fails.
    for (let index = 0; index < 1_500; index += 1) {
      const format = { type: 'json_schema' as const, schema: distinctSchema(index) };
      expect(answerViolations(format, JSON.stringify({ code: `row ${index} done`, [`x_${index}_a`]: 1 }))).toEqual([]);
      expect(answerViolations(format, JSON.stringify({ code: `row ${index + 1} done` }))).toEqual([
        { path: '/code', message: expect.stringContaining('must match pattern') },
      ]);
    }
    const fresh = { type: 'json_schema' as const, schema: distinctSchema(-1) };
    expect(answerViolations(fresh, JSON.stringify({ code: 'col -1 failed', note: '-1 ok' }))).toEqual([]);
    expect(answerViolations(fresh, JSON.stringify({ code: 'col -1 failed', x_1_a: 1, 'x_-1_b': 'no' }))).toEqual([
      { path: '/x_-1_b', message: 'must be integer' },
    ]);
  });

  it('frees what a refused schema compiled: many formats whose last pattern is invalid, then a new one validates', () => {
    // A long pattern that fails at its end; unfreed, about 1,200 such refusals fill the heap.
    const refused = (index: number) => ({
      type: 'object',
      properties: {
        fine: { type: 'string', pattern: `^${index}[a-z]{0,40}$` },
        broken: { type: 'string', pattern: `${index}${'[a-z]x'.repeat(400)}(` },
      },
    });
    for (let index = 0; index < 3_000; index += 1)
      expect(responseSchemaProblem(refused(index))).toEqual({
        detail: 'response_schema_invalid',
        params: { reason: expect.stringMatching(/^Invalid regular expression: \/\d+\[a-z\]x/) },
      });
    const fresh = { type: 'json_schema' as const, schema: distinctSchema(-2) };
    expect(answerViolations(fresh, JSON.stringify({ code: 'row -2 done' }))).toEqual([]);
  });
});
