import { storedMcpPublish, type AgentRecord, type CreateAgentFields, type UpdateAgentFields } from '@waggle/contracts';
import type { AgentEntity } from './entities/agent.entity';

/** decisions: the agent record in responses, unset optional fields null, status `active`. */
export function toAgentRecord(agent: AgentEntity): AgentRecord {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    llm_model: agent.llmModel,
    model_type: agent.modelType,
    instruction_prompt: agent.instructionPrompt,
    temperature: agent.temperature,
    max_token: agent.maxToken,
    max_thinking_token: agent.maxThinkingToken,
    provider_prompt_cache_ttl: agent.providerPromptCacheTtl,
    reasoning_effort: agent.reasoningEffort,
    tool_choice: agent.toolChoice,
    max_tool_calls: agent.maxToolCalls,
    fallbacks: agent.fallbacks,
    response_format: agent.responseFormat,
    mcp: agent.mcp,
    credentials: agent.credentials,
    publish: agent.publish,
    status: 'active',
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}

/** The settings columns of an agent, as a create or an update may set them. */
export type AgentSettings = Pick<
  AgentEntity,
  | 'name'
  | 'description'
  | 'llmModel'
  | 'modelType'
  | 'instructionPrompt'
  | 'temperature'
  | 'maxToken'
  | 'maxThinkingToken'
  | 'providerPromptCacheTtl'
  | 'reasoningEffort'
  | 'toolChoice'
  | 'maxToolCalls'
  | 'fallbacks'
  | 'responseFormat'
  | 'mcp'
  | 'credentials'
  | 'publish'
>;

/** The columns a create's fields set: absent optional fields are null. */
export function settingsOfCreate(fields: CreateAgentFields): AgentSettings {
  return {
    name: fields.name,
    description: fields.description ?? null,
    llmModel: fields.llm_model,
    modelType: fields.model_type,
    instructionPrompt: fields.instruction_prompt ?? null,
    temperature: fields.temperature ?? null,
    maxToken: fields.max_token ?? null,
    maxThinkingToken: fields.max_thinking_token ?? null,
    providerPromptCacheTtl: fields.provider_prompt_cache_ttl ?? null,
    reasoningEffort: fields.reasoning_effort ?? null,
    toolChoice: fields.tool_choice ?? null,
    maxToolCalls: fields.max_tool_calls ?? null,
    fallbacks: fields.fallbacks ?? [],
    responseFormat: fields.response_format ?? null,
    mcp: fields.mcp ?? null,
    credentials: fields.credentials ?? 'hosted',
    publish: storedMcpPublish(fields.publish),
  };
}

/** The columns an update changes: only the fields it names (null unsets an optional one). */
export function settingsOfUpdate(fields: UpdateAgentFields): Partial<AgentSettings> {
  const changes: Partial<AgentSettings> = {};
  const set = <K extends keyof AgentSettings>(column: K, value: AgentSettings[K] | undefined) => {
    if (value !== undefined) changes[column] = value;
  };
  set('name', fields.name);
  set('description', fields.description);
  set('llmModel', fields.llm_model);
  set('modelType', fields.model_type);
  set('instructionPrompt', fields.instruction_prompt);
  set('temperature', fields.temperature);
  set('maxToken', fields.max_token);
  set('maxThinkingToken', fields.max_thinking_token);
  set('providerPromptCacheTtl', fields.provider_prompt_cache_ttl);
  set('reasoningEffort', fields.reasoning_effort);
  set('toolChoice', fields.tool_choice);
  set('maxToolCalls', fields.max_tool_calls);
  // null unsets the list too: no fallbacks.
  set('fallbacks', fields.fallbacks === null ? [] : fields.fallbacks);
  set('responseFormat', fields.response_format);
  set('mcp', fields.mcp);
  set('credentials', fields.credentials === null ? 'hosted' : fields.credentials);
  if (fields.publish !== undefined) changes.publish = storedMcpPublish(fields.publish);
  return changes;
}
