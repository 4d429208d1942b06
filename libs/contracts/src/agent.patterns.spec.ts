import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import {
  AGENT_PROMPT_CACHE_TTLS,
  AGENT_REASONING_EFFORTS,
  AGENT_TOOL_CHOICES,
  CreateAgentRequest,
  UpdateAgentRequest,
} from './agent.patterns';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const REQUIRED = { name: 'Support', llm_model: 'gpt-6-luna', model_type: 'llm' };

/** Every failing field as "path: constraint, …", the way the validation pipes report them. */
function problems(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.keys(error.constraints ?? {}).length ? [`${field}: ${Object.keys(error.constraints ?? {}).join(', ')}`] : [];
    return [...own, ...problems(error.children ?? [], field)];
  });
}

function checkCreate(agent: unknown) {
  const request = plainToInstance(CreateAgentRequest, { workspace_id: WORKSPACE, agent });
  return { request, problems: problems(validateSync(request, { whitelist: true, forbidNonWhitelisted: true })) };
}

function checkUpdate(agent: unknown) {
  const request = plainToInstance(UpdateAgentRequest, { workspace_id: WORKSPACE, agent_id: 'any', agent });
  return { request, problems: problems(validateSync(request, { whitelist: true, forbidNonWhitelisted: true })) };
}

describe('agent contract: create and update requests', () => {
  it('takes the three required fields alone, and names each one missing', () => {
    expect(checkCreate(REQUIRED).problems).toEqual([]);
    expect(checkCreate({}).problems).toEqual([
      'agent.name: isLength, isString',
      'agent.llm_model: isLength, isString',
      'agent.model_type: isLength, isString',
    ]);
  });

  it('requires the agent wrapper to be an object (not absent, null, an array or a string)', () => {
    for (const agent of [undefined, null, [REQUIRED], 'agent'])
      expect(checkCreate(agent).problems).toContainEqual(expect.stringMatching(/^agent: .*isObject/));
  });

  it("takes create's max_token as an integer, coercing a string of digits and refusing anything else", () => {
    expect(checkCreate({ ...REQUIRED, max_token: 2048 }).request.agent.max_token).toBe(2048);
    const coerced = checkCreate({ ...REQUIRED, max_token: '2048' });
    expect(coerced.problems).toEqual([]);
    expect(coerced.request.agent.max_token).toBe(2048);
    for (const bad of ['0190f5a1-b2c3-7d4e-8f90-a1b2c3d4e5f6', 'abc', '12.5', '', ' 12', 12.5, 0, true, [1], { n: 1 }, '99999999999']) {
      expect({ bad, problems: checkCreate({ ...REQUIRED, max_token: bad }).problems }).toEqual({
        bad,
        problems: [expect.stringMatching(/^agent\.max_token: /)],
      });
    }
  });

  it("takes update's max_token as an integer only, as declared", () => {
    expect(checkUpdate({ max_token: 100 }).problems).toEqual([]);
    expect(checkUpdate({ max_token: '100' }).problems).toEqual(['agent.max_token: max, min, isInt']);
  });

  it('accepts the update-only fields on create too, with every value of their enums and nothing else', () => {
    const complete = {
      ...REQUIRED,
      max_thinking_token: 1024,
      provider_prompt_cache_ttl: '1h',
      reasoning_effort: 'xhigh',
      tool_choice: 'required',
      max_tool_calls: 5,
    };
    expect(checkCreate(complete).problems).toEqual([]);
    const enums = {
      provider_prompt_cache_ttl: AGENT_PROMPT_CACHE_TTLS,
      reasoning_effort: AGENT_REASONING_EFFORTS,
      tool_choice: AGENT_TOOL_CHOICES,
    };
    expect(enums).toEqual({
      provider_prompt_cache_ttl: ['disabled', '5m', '1h'],
      reasoning_effort: ['low', 'medium', 'high', 'minimal', 'xhigh', 'max'],
      tool_choice: ['none', 'auto', 'required'],
    });
    for (const [field, values] of Object.entries(enums)) {
      for (const value of values) {
        expect(checkCreate({ ...REQUIRED, [field]: value }).problems).toEqual([]);
        expect(checkUpdate({ [field]: value }).problems).toEqual([]);
      }
      for (const bad of ['HIGH', 'off', '', 1])
        expect(checkCreate({ ...REQUIRED, [field]: bad }).problems).toEqual([`agent.${field}: isIn`]);
    }
    for (const field of ['max_thinking_token', 'max_tool_calls']) {
      for (const bad of [-1, 1.5, '3', 2_147_483_648])
        expect(checkUpdate({ [field]: bad }).problems).toEqual([expect.stringMatching(new RegExp(`^agent\\.${field}: `))]);
    }
  });

  it('bounds temperature to 0..2', () => {
    for (const good of [0, 0.7, 2]) expect(checkCreate({ ...REQUIRED, temperature: good }).problems).toEqual([]);
    for (const bad of [-0.1, 2.1, '0.5'])
      expect(checkCreate({ ...REQUIRED, temperature: bad }).problems).toEqual([expect.stringMatching(/^agent\.temperature: /)]);
  });

  it('lets null unset an optional field on update, but never a required one', () => {
    expect(checkUpdate({ description: null, temperature: null, max_token: null, tool_choice: null }).problems).toEqual([]);
    expect(checkUpdate({ name: null, llm_model: null, model_type: null }).problems).toEqual([
      'agent.name: isLength, isString',
      'agent.llm_model: isLength, isString',
      'agent.model_type: isLength, isString',
    ]);
    expect(checkUpdate({}).problems).toEqual([]);
  });

  it('refuses fields the resource does not have', () => {
    expect(checkCreate({ ...REQUIRED, status: 'active' }).problems).toEqual(['agent.status: whitelistValidation']);
    expect(checkUpdate({ id: 'x' }).problems).toEqual(['agent.id: whitelistValidation']);
  });
});
