import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ListLimit, numberFromText } from './common.dto';
import { PromptVersionsRequest, WorkflowVersionsRequest } from './invocation.patterns';
import { WebhookSecretRotation } from './webhook-owners';

const WORKSPACE = '0b6d3c0e-6a53-4d0c-9d6e-1f1f4f1c2b3a';

describe.each([PromptVersionsRequest, WorkflowVersionsRequest])('%p (a DeploymentVariantRequest)', (RequestClass) => {
  const problems = (plain: object) =>
    validateSync(plainToInstance(RequestClass, plain)).map(({ property, constraints }) => ({ property, constraints }));

  it('takes a workspace, a deployment and a variant', () => {
    expect(problems({ workspace_id: WORKSPACE, deployment: 'support', variant: 'main' })).toEqual([]);
  });

  it('refuses a bad workspace and out-of-bounds names with the same messages, in field order', () => {
    expect(problems({ workspace_id: 'nope', deployment: '', variant: 'x'.repeat(201) })).toEqual([
      { property: 'workspace_id', constraints: { isUuid: 'workspace_id must be a UUID' } },
      { property: 'deployment', constraints: { isLength: 'deployment must be longer than or equal to 1 characters' } },
      { property: 'variant', constraints: { isLength: 'variant must be shorter than or equal to 200 characters' } },
    ]);
  });
});

describe('numbers sent as text (numberFromText), where @Type(() => Number) threw', () => {
  const hostile: unknown[] = [{ toString: null }, { valueOf: null, toString: null }, { toString: 'x' }, { valueOf: {} }];

  it.each<new () => object>([ListLimit, WebhookSecretRotation])(
    '%p takes digits, refuses anything else as a field problem and never throws',
    (RequestClass) => {
      const field = RequestClass === ListLimit ? 'limit' : 'overlap_seconds';
      const problems = (value: unknown) =>
        validateSync(plainToInstance(RequestClass, { [field]: value } as object) as object).map(({ property }) => property);
      expect(problems('60')).toEqual([]);
      expect(problems(60)).toEqual([]);
      for (const value of [...hostile, 'NaN', '', ' ', '1e400', [], ['1'], true])
        expect({ value, problems: problems(value) }).toEqual({ value, problems: [field] });
    },
  );

  it('passes numbers through, turns numeric text into numbers and leaves the rest as sent', () => {
    expect(numberFromText({ value: '42' })).toBe(42);
    expect(numberFromText({ value: ' -1.5 ' })).toBe(-1.5);
    expect(numberFromText({ value: 7 })).toBe(7);
    for (const value of [...hostile, 'abc', '', 'Infinity', undefined, null]) expect(numberFromText({ value })).toBe(value);
  });
});
