import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { defaultMcpToolName, McpPublishDto, mcpToolNameOf, sameMcpPublish, storedMcpPublish } from './mcp-tools';

describe('MCP tool names (the spec’s decisions, MCP, "exposed tools")', () => {
  it('makes a default name of the kind and the names: lower-cased, anything outside [a-z0-9_] as _, cut to 40', () => {
    expect(defaultMcpToolName('prompt', 'helpdesk', 'default')).toBe('prompt_helpdesk_default');
    expect(defaultMcpToolName('workflow', 'Company-Brief', 'v2.1')).toBe('workflow_company_brief_v2_1');
    expect(defaultMcpToolName('agent', 'Front Desk ✨')).toBe('agent_front_desk__');
    const long = defaultMcpToolName('prompt', 'a'.repeat(60), 'b');
    expect(long).toBe(`prompt_${'a'.repeat(33)}`);
    expect(long).toMatch(/^[a-z0-9_]{1,40}$/);
  });

  it('names a published artifact by its own tool_name, else the default; an unpublished one not at all', () => {
    const fallback = () => 'prompt_x_y';
    expect(mcpToolNameOf({ mcp: true, tool_name: 'mine' }, fallback)).toBe('mine');
    expect(mcpToolNameOf({ mcp: true }, fallback)).toBe('prompt_x_y');
    expect(mcpToolNameOf({ mcp: false, tool_name: 'mine' }, fallback)).toBeNull();
    expect(mcpToolNameOf(null, fallback)).toBeNull();
    expect(mcpToolNameOf(undefined, fallback)).toBeNull();
  });

  it('keeps publish as its three fields, those given, and compares two by them', () => {
    expect(storedMcpPublish({ mcp: true, tool_name: null, description: undefined } as never)).toEqual({ mcp: true });
    expect(storedMcpPublish({ mcp: false, tool_name: 'x', description: 'd', extra: 1 } as never)).toEqual({
      mcp: false,
      tool_name: 'x',
      description: 'd',
    });
    expect(storedMcpPublish(null)).toBeNull();
    expect(sameMcpPublish({ mcp: true }, { mcp: true, tool_name: undefined })).toBe(true);
    expect(sameMcpPublish({ mcp: true, description: 'a' }, { description: 'a', mcp: true })).toBe(true);
    expect(sameMcpPublish({ mcp: true }, { mcp: false })).toBe(false);
    expect(sameMcpPublish({ mcp: true }, null)).toBe(false);
    expect(sameMcpPublish(null, undefined)).toBe(true);
  });

  it('validates publish: mcp a boolean, tool_name ^[a-z0-9_]{1,40}$, description at most 1024 characters', () => {
    const problems = (value: unknown) =>
      validateSync(plainToInstance(McpPublishDto, value) as object).map((error) => [
        error.property,
        Object.keys(error.constraints ?? {}).sort(),
      ]);
    expect(problems({ mcp: true, tool_name: 'a_1', description: 'd'.repeat(1024) })).toEqual([]);
    expect(problems({})).toEqual([['mcp', ['isBoolean', 'isDefined']]]);
    expect(problems({ mcp: 'yes', tool_name: 'Bad-Name', description: 'd'.repeat(1025) })).toEqual([
      ['mcp', ['isBoolean']],
      ['tool_name', ['matches']],
      ['description', ['maxLength']],
    ]);
    expect(problems({ mcp: true, tool_name: 'a'.repeat(41) })).toEqual([['tool_name', ['matches']]]);
  });
});
