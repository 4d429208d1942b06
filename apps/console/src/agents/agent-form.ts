/** The agent record as `/v1/public/workspaces/{id}/agents` answers it (the fields the console shows). */
export interface AgentRow {
  id: string;
  name: string;
  description: string | null;
  llm_model: string;
  model_type: string;
  instruction_prompt: string | null;
  temperature: number | null;
  max_token: number | null;
  reasoning_effort: string | null;
  tool_choice: string | null;
  max_tool_calls: number | null;
  status: string;
  created_at: string;
  updated_at: string;
}

/** The form's fields, all text as the inputs hold them. */
export interface AgentFormValues {
  name: string;
  description: string;
  llm_model: string;
  model_type: string;
  instruction_prompt: string;
  temperature: string;
  max_token: string;
  reasoning_effort: string;
  tool_choice: string;
  max_tool_calls: string;
}

export const TOOL_CHOICES = ['auto', 'none', 'required'] as const;
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

export const EMPTY_AGENT_FORM: AgentFormValues = {
  name: '',
  description: '',
  llm_model: '',
  model_type: 'llm',
  instruction_prompt: '',
  temperature: '',
  max_token: '',
  reasoning_effort: '',
  tool_choice: '',
  max_tool_calls: '',
};

export function formOfAgent(agent: AgentRow): AgentFormValues {
  const shown = (value: string | number | null) => (value === null ? '' : String(value));
  return {
    name: agent.name,
    description: shown(agent.description),
    llm_model: agent.llm_model,
    model_type: agent.model_type,
    instruction_prompt: shown(agent.instruction_prompt),
    temperature: shown(agent.temperature),
    max_token: shown(agent.max_token),
    reasoning_effort: shown(agent.reasoning_effort),
    tool_choice: shown(agent.tool_choice),
    max_tool_calls: shown(agent.max_tool_calls),
  };
}

/**
 * The `{agent: {...}}` body of a create (`update: false`: empty optional fields left out) or an
 * update (`update: true`: an emptied optional field is sent as null, which unsets it). Numbers
 * are sent as numbers when they read as one, else as the text typed, so the API's 422 names the
 * field rather than the console guessing.
 */
export function agentBody(values: AgentFormValues, update: boolean): { agent: Record<string, unknown> } {
  const agent: Record<string, unknown> = {
    name: values.name.trim(),
    llm_model: values.llm_model.trim(),
    model_type: values.model_type.trim(),
  };
  const optional = (field: keyof AgentFormValues, value: unknown) => {
    if (value !== undefined) agent[field] = value;
    else if (update) agent[field] = null;
  };
  const textOf = (field: keyof AgentFormValues) => (values[field].trim() === '' ? undefined : values[field]);
  const numberOf = (field: keyof AgentFormValues) => {
    const typed = values[field].trim();
    if (typed === '') return undefined;
    const number = Number(typed);
    return Number.isFinite(number) ? number : typed;
  };
  optional('description', textOf('description'));
  optional('instruction_prompt', textOf('instruction_prompt'));
  optional('temperature', numberOf('temperature'));
  optional('max_token', numberOf('max_token'));
  optional('reasoning_effort', textOf('reasoning_effort'));
  optional('tool_choice', textOf('tool_choice'));
  optional('max_tool_calls', numberOf('max_tool_calls'));
  return { agent };
}
