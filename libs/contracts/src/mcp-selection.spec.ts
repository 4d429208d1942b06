import { mcpSelectionProblem } from './mcp-selection';

describe("mcpSelectionProblem: an agent's mcp", () => {
  it.each([
    ['null (unset)', null],
    ['an empty list', []],
    ['every tool of a server', [{ server: 'docs', tools: '*' }]],
    [
      'named tools of two servers',
      [
        { server: 'docs', tools: ['search', 'read'] },
        { server: 'ci_2-x', tools: ['x'.repeat(128)] },
      ],
    ],
    ['twenty servers', Array.from({ length: 20 }, (_, index) => ({ server: `s${index}`, tools: '*' }))],
  ])('accepts %s', (_name, value) => {
    expect(mcpSelectionProblem(value)).toBeUndefined();
  });

  it.each([
    ['an object', { server: 'docs', tools: '*' }, { detail: 'validation_mcp_not_list', params: { property: 'mcp', max: 20 } }],
    [
      'twenty-one servers',
      Array.from({ length: 21 }, (_, index) => ({ server: `s${index}`, tools: '*' })),
      { detail: 'validation_mcp_not_list', params: { property: 'mcp', max: 20 } },
    ],
    ['an entry that is a string', ['docs'], { detail: 'validation_mcp_entry', params: { property: 'mcp', index: 0 } }],
    [
      'an entry with another field',
      [{ server: 'docs', tools: '*', headers: {} }],
      { detail: 'validation_mcp_entry', params: { property: 'mcp', index: 0 } },
    ],
    ['an upper-case server', [{ server: 'Docs', tools: '*' }], { detail: 'validation_mcp_server', params: { property: 'mcp', index: 0 } }],
    [
      'a server id of 25 characters',
      [{ server: 'a'.repeat(25), tools: '*' }],
      { detail: 'validation_mcp_server', params: { property: 'mcp', index: 0 } },
    ],
    [
      'a server named twice',
      [
        { server: 'docs', tools: '*' },
        { server: 'docs', tools: ['x'] },
      ],
      { detail: 'validation_mcp_server_repeated', params: { property: 'mcp', index: 1, server: 'docs' } },
    ],
    [
      'no tools',
      [{ server: 'docs', tools: [] }],
      { detail: 'validation_mcp_tools', params: { property: 'mcp', index: 0, max: 100, length: 128 } },
    ],
    [
      'tools missing',
      [{ server: 'docs' }],
      { detail: 'validation_mcp_tools', params: { property: 'mcp', index: 0, max: 100, length: 128 } },
    ],
    [
      '"all"',
      [{ server: 'docs', tools: 'all' }],
      { detail: 'validation_mcp_tools', params: { property: 'mcp', index: 0, max: 100, length: 128 } },
    ],
    [
      '101 tools',
      [{ server: 'docs', tools: Array.from({ length: 101 }, (_, index) => `t${index}`) }],
      { detail: 'validation_mcp_tools', params: { property: 'mcp', index: 0, max: 100, length: 128 } },
    ],
    [
      'a tool name of 129 characters',
      [{ server: 'docs', tools: ['x'.repeat(129)] }],
      { detail: 'validation_mcp_tools', params: { property: 'mcp', index: 0, max: 100, length: 128 } },
    ],
    [
      'an empty tool name',
      [{ server: 'docs', tools: [''] }],
      { detail: 'validation_mcp_tools', params: { property: 'mcp', index: 0, max: 100, length: 128 } },
    ],
  ])('refuses %s, naming the entry', (_name, value, problem) => {
    expect(mcpSelectionProblem(value)).toEqual(problem);
  });
});
