import { defaultMcpToolName, mcpToolNameOf, type McpPublish, type McpToolDescriptor } from '@waggle/contracts';

/** What an agent's tool is made of. */
export interface PublishableAgent {
  id: string;
  name: string;
  description: string | null;
  publish: McpPublish | null;
}

/** The agent's tool name when it is published (`publish.tool_name`, else `agent_<name>` normalized), else null. */
export function agentToolName(agent: Pick<PublishableAgent, 'name' | 'publish'>): string | null {
  return mcpToolNameOf(agent.publish, () => defaultMcpToolName('agent', agent.name));
}

/**
 * A published agent as an MCP tool (the spec's decisions, MCP, "exposed tools"): a message in,
 * the answer and the thread out. Without a `thread_id` the gateway starts a thread, and the
 * answer names it, so the next call continues the conversation.
 */
export function agentToolDescriptor(agent: PublishableAgent): McpToolDescriptor | null {
  const name = agentToolName(agent);
  if (name === null) return null;
  return {
    name,
    description:
      agent.publish?.description ??
      agent.description ??
      `Talks to the agent "${agent.name}": send a message, get its answer. Pass the thread_id of an earlier answer to continue that conversation.`,
    input_schema: {
      type: 'object',
      properties: {
        message: { type: 'string', description: 'The message to the agent' },
        thread_id: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          description: 'The thread_id of an earlier answer, to continue that conversation; a new thread when absent',
        },
      },
      required: ['message'],
      additionalProperties: false,
    },
    output_schema: {
      type: 'object',
      properties: {
        answer: { type: 'string', description: "The agent's answer" },
        thread_id: { type: 'string', description: 'The conversation this answer belongs to: pass it to continue it' },
      },
      required: ['answer', 'thread_id'],
      additionalProperties: false,
    },
    target: { kind: 'agent', agent_id: agent.id },
  };
}
