import { createHash } from 'node:crypto';
import { McpToolNames, modelToolName } from './tool-names';

const hash8 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

describe('modelToolName', () => {
  it('joins server and tool with two underscores', () => {
    expect(modelToolName('github', 'create_issue')).toBe('github__create_issue');
  });

  it('replaces every character outside [A-Za-z0-9_-] with an underscore', () => {
    expect(modelToolName('docs', 'search.v2/all files')).toBe('docs__search_v2_all_files');
    expect(modelToolName('x', 'naïve')).toBe('x__na_ve');
  });

  it('keeps a name of exactly 64 characters as it is', () => {
    const tool = 'a'.repeat(64 - 'srv__'.length);
    expect(modelToolName('srv', tool)).toBe(`srv__${tool}`);
  });

  it('cuts a longer name to 55 characters, then _ and the first 8 hex of sha256 of the unreplaced name', () => {
    const tool = 'very.long.tool.name.'.repeat(5);
    const name = modelToolName('server', tool);
    expect(name).toHaveLength(64);
    expect(name).toBe(`${`server__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 55)}_${hash8(`server__${tool}`)}`);
    expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe('McpToolNames', () => {
  it('maps names back exactly', () => {
    const names = new McpToolNames();
    const name = names.add('docs', 'search.v2');
    expect(name).toBe('docs__search_v2');
    expect(names.resolve(name)).toEqual({ serverId: 'docs', toolName: 'search.v2' });
    expect(names.resolve('docs__other')).toBeUndefined();
    expect(names.resolve('__proto__')).toBeUndefined();
  });

  it('answers the same name when a tool is added again', () => {
    const names = new McpToolNames();
    expect(names.add('a', 'b')).toBe(names.add('a', 'b'));
    expect(names.size).toBe(1);
  });

  it('gives a clashing tool the hashed form, and both still map back', () => {
    const names = new McpToolNames();
    const first = names.add('docs', 'a.b');
    const second = names.add('docs', 'a_b');
    expect(first).toBe('docs__a_b');
    expect(second).toBe(`docs__a_b_${hash8('docs__a_b')}`);
    expect(names.resolve(first)).toEqual({ serverId: 'docs', toolName: 'a.b' });
    expect(names.resolve(second)).toEqual({ serverId: 'docs', toolName: 'a_b' });
  });

  it('tells apart long names that share their first 55 characters', () => {
    const names = new McpToolNames();
    const prefix = 'p'.repeat(60);
    const one = names.add('s', `${prefix}_one`);
    const two = names.add('s', `${prefix}_two`);
    expect(one).not.toBe(two);
    expect(one).toHaveLength(64);
    expect(names.resolve(two)).toEqual({ serverId: 's', toolName: `${prefix}_two` });
  });
});
