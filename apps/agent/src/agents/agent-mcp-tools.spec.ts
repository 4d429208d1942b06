import { agentToolDescriptor, agentToolName } from './agent-mcp-tools';

describe('a published agent as an MCP tool', () => {
  const agent = { id: '5d0c3f4e-41a1-4f60-9c4e-5f0f3f2f1a11', name: 'Front Desk', description: null, publish: { mcp: true } };

  it('is named agent_<name> normalized, or its publish.tool_name; an unpublished agent is no tool', () => {
    expect(agentToolName(agent)).toBe('agent_front_desk');
    expect(agentToolName({ ...agent, publish: { mcp: true, tool_name: 'desk' } })).toBe('desk');
    expect(agentToolName({ ...agent, publish: { mcp: false } })).toBeNull();
    expect(agentToolDescriptor({ ...agent, publish: null })).toBeNull();
  });

  it('takes a message and an optional thread, answers the answer and its thread; described by publish, the agent, or a sentence', () => {
    const tool = agentToolDescriptor(agent);
    expect(tool).toMatchObject({
      input_schema: { required: ['message'], properties: { message: { type: 'string' }, thread_id: { type: 'string', maxLength: 256 } } },
      output_schema: { required: ['answer', 'thread_id'] },
      target: { kind: 'agent', agent_id: agent.id },
    });
    expect(tool?.description).toContain('"Front Desk"');
    expect(agentToolDescriptor({ ...agent, description: 'Greets' })?.description).toBe('Greets');
    expect(agentToolDescriptor({ ...agent, description: 'Greets', publish: { mcp: true, description: 'Says hello' } })?.description).toBe(
      'Says hello',
    );
  });
});
