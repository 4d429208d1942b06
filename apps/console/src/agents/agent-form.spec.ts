import { agentBody, EMPTY_AGENT_FORM, formOfAgent, type AgentRow } from './agent-form';

const AGENT: AgentRow = {
  id: 'a1',
  name: 'Support',
  description: null,
  llm_model: 'fake-chat',
  model_type: 'llm',
  instruction_prompt: 'Be kind.',
  temperature: 0.3,
  max_token: null,
  reasoning_effort: null,
  tool_choice: 'auto',
  max_tool_calls: 4,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('agentBody', () => {
  it('leaves empty optional fields out of a create and sends numbers as numbers', () => {
    expect(agentBody({ ...EMPTY_AGENT_FORM, name: ' Support ', llm_model: 'fake-chat', temperature: '0.5' }, false)).toEqual({
      agent: { name: 'Support', llm_model: 'fake-chat', model_type: 'llm', temperature: 0.5 },
    });
  });

  it('unsets emptied optional fields on an update, so the record read can be sent back', () => {
    const values = { ...formOfAgent(AGENT), instruction_prompt: '', max_tool_calls: '6' };
    expect(agentBody(values, true)).toEqual({
      agent: {
        name: 'Support',
        llm_model: 'fake-chat',
        model_type: 'llm',
        description: null,
        instruction_prompt: null,
        temperature: 0.3,
        max_token: null,
        reasoning_effort: null,
        tool_choice: 'auto',
        max_tool_calls: 6,
      },
    });
  });

  it('sends a number that does not read as one as typed, for the API to name', () => {
    expect(agentBody({ ...EMPTY_AGENT_FORM, name: 'x', llm_model: 'm', temperature: 'warm' }, false).agent.temperature).toBe('warm');
  });
});
