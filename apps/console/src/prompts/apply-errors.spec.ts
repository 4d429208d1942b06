import { lineOfPath, pathSegments, placeErrors, readApplyFile } from './apply-errors';

const FILE = [
  'prompts:', // 1
  '  - deployment: answers', // 2
  '    variants:', // 3
  '      - name: default', // 4
  '        model: gpt-x', // 5
  '        messages:', // 6
  '          - role: robot', // 7
  '            content: hi', // 8
  '      - name: checkout', // 9
  '        model: gpt-x', // 10
  '        messages: [{ role: user, content: "{{ q }}" }]', // 11
  '        split:', // 12
  '          - { variant: default, weight: 50 }', // 13
  '          - { variant: zzz, weight: 40 }', // 14
  '',
].join('\n');

describe('pathSegments', () => {
  it('reads both the bracket and the dotted forms', () => {
    expect(pathSegments('prompts[0].variants[1].split')).toEqual(['prompts', 0, 'variants', 1, 'split']);
    expect(pathSegments('prompts.0.variants.0.messages.0.role')).toEqual(['prompts', 0, 'variants', 0, 'messages', 0, 'role']);
  });
});

describe('lineOfPath', () => {
  it("points at the named field's key", () => {
    expect(lineOfPath(FILE, 'prompts.0.variants.0.messages.0.role')).toBe(7);
    expect(lineOfPath(FILE, 'prompts[0].variants[1].split')).toBe(12);
    expect(lineOfPath(FILE, 'prompts[0].variants[1].model')).toBe(10);
  });

  it('points at a flow item and at the keys inside it', () => {
    expect(lineOfPath(FILE, 'prompts[0].variants[1].split[1]')).toBe(14);
    expect(lineOfPath(FILE, 'prompts[0].variants[1].split[1].variant')).toBe(14);
  });

  it('points a missing field at the deepest part of the path that is there', () => {
    expect(lineOfPath(FILE, 'prompts[0].variants[0].fallbacks')).toBe(4);
    expect(lineOfPath(FILE, 'prompts[0].variants[5].model')).toBe(3);
  });

  it('answers the first line for an empty path and null for an empty file', () => {
    expect(lineOfPath(FILE, '')).toBe(1);
    expect(lineOfPath('', 'prompts')).toBeNull();
  });
});

describe('placeErrors', () => {
  it("places each detail's messages on its line and skips entries without a field", () => {
    const details = [
      { field: 'prompts[0].variants[1].split', messages: ['The weights of a split must sum to 100 (these sum to 90)'] },
      { field: 'prompts.0.variants.0.messages.0.role', messages: ['role must be one of system, user, assistant'] },
      { messages: ['no field'] },
    ];
    expect(placeErrors(FILE, details)).toEqual([
      { line: 12, field: 'prompts[0].variants[1].split', messages: ['The weights of a split must sum to 100 (these sum to 90)'] },
      { line: 7, field: 'prompts.0.variants.0.messages.0.role', messages: ['role must be one of system, user, assistant'] },
    ]);
  });

  it('answers nothing for details that are not a list', () => {
    expect(placeErrors(FILE, undefined)).toEqual([]);
    expect(placeErrors(FILE, { field: 'x' })).toEqual([]);
  });
});

describe('readApplyFile', () => {
  it("reads the file's prompts and workflows lists", () => {
    expect(readApplyFile('prompts: [{ deployment: a }]\nworkflows: []\n')).toEqual({
      bodies: { prompts: [{ deployment: 'a' }], workflows: [] },
    });
  });

  it('places a YAML syntax error on its line', () => {
    const read = readApplyFile('prompts:\n  - deployment: a\n    variants: [\n');
    expect('errors' in read && read.errors[0].line).toBeGreaterThanOrEqual(3);
    expect('errors' in read && read.errors[0].field).toBeNull();
  });

  it('refuses a file without a prompts or workflows list', () => {
    expect(readApplyFile('agents: []\n')).toEqual({
      errors: [{ line: 1, field: null, messages: ['The file needs a `prompts:` or a `workflows:` list.'] }],
    });
  });
});
