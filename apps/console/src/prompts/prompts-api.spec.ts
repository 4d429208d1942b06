import { kindOf, splitTargetText, splitText } from './prompts-api';

describe('splitText', () => {
  it('names each target by what it serves, with its weight, in the order given', () => {
    expect(
      splitText({
        id: 's-1',
        targets: [
          { variant: 'default', weight: 60 },
          { variant: 'terse', version: 3, weight: 30 },
          { version: 2, weight: 10 },
        ],
      }),
    ).toBe('default (deployed) 60%, terse v3 30%, v2 of this variant 10%');
  });

  it('reads a target with neither a variant nor a version as the deployed version of the variant itself', () => {
    expect(splitTargetText({ weight: 100 })).toBe('this variant (deployed)');
  });
});

describe('kindOf', () => {
  it('reads workflows, and prompts for anything else', () => {
    expect(kindOf('workflows')).toBe('workflows');
    expect(kindOf('prompts')).toBe('prompts');
    expect(kindOf('other')).toBe('prompts');
  });
});
