import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { AgentPromptCacheTtl, AgentReasoningEffort, AgentToolChoice, ResponseFormat } from '@waggle/contracts';
import type { DataSource } from 'typeorm';
import { isAgentId } from '../agents/agents.repository';
import type { StoredAttachment } from '../threads/entities';
import type { StoredTurn } from './conversation';

/** What a run needs of its agent. */
export interface RunnableAgent {
  id: string;
  workspaceId: string;
  /** Its name, as a run's span names it (invoke_agent {name}). */
  name: string;
  llmModel: string;
  instructionPrompt: string | null;
  temperature: number | null;
  maxToken: number | null;
  maxThinkingToken: number | null;
  providerPromptCacheTtl: AgentPromptCacheTtl | null;
  reasoningEffort: AgentReasoningEffort | null;
  toolChoice: AgentToolChoice | null;
  maxToolCalls: number | null;
  /** Catalog model ids tried in order when `llmModel` is unavailable (D41); empty for none. */
  fallbacks: string[];
  /** The JSON Schema the answer must match (D42). */
  responseFormat: ResponseFormat | null;
  /** Attached knowledge bases, searched by the `knowledge_search` tool; empty for none. */
  knowledgeBaseIds: string[];
}

/** One tool call of a finished run, as the thread keeps it. */
export interface ToolCallRecord {
  toolCallId: string;
  toolName: string;
  input: unknown;
  observation: string;
  durationMs: number;
}

/** A finished run's turn: the caller's message and the agent's answer. */
export interface FinishedTurn {
  threadId: string;
  requestId: string;
  message: string;
  attachments: StoredAttachment[];
  response: string;
  toolCalls: ToolCallRecord[];
}

/** Stored turns read back at most (newest kept); windowing to the model's context cuts further. */
export const MAX_STORED_TURNS_READ = 400;

const AGENT_COLUMNS = `id, workspace_id AS "workspaceId", name, llm_model AS "llmModel", instruction_prompt AS "instructionPrompt", temperature,
  max_token AS "maxToken", max_thinking_token AS "maxThinkingToken", provider_prompt_cache_ttl AS "providerPromptCacheTtl",
  reasoning_effort AS "reasoningEffort", tool_choice AS "toolChoice", max_tool_calls AS "maxToolCalls",
  fallbacks, response_format AS "responseFormat",
  ARRAY(SELECT k.knowledge_base_id::text FROM agent.agent_knowledge_bases k WHERE k.agent_id = agents.id ORDER BY k.created_at, k.knowledge_base_id) AS "knowledgeBaseIds"`;

/**
 * The queries of a run, in SQL (no entity hydration on the request path): the agent, the
 * thread's turns, and the finished turn written in one transaction.
 */
@Injectable()
export class RunsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The workspace's active agent, or null (also for an id that is not a UUID). */
  async agent(workspaceId: string, agentId: string): Promise<RunnableAgent | null> {
    if (!isAgentId(agentId)) return null;
    const rows: RunnableAgent[] = await this.dataSource.query(
      `SELECT ${AGENT_COLUMNS} FROM agent.agents WHERE id = $1 AND workspace_id = $2 AND deleted_at IS NULL`,
      [agentId, workspaceId],
    );
    return rows[0] ?? null;
  }

  /** The thread named by the caller's key, made on first use, with its newest stored turns (oldest first). */
  async openThread(workspaceId: string, agentId: string, threadKey: string): Promise<{ threadId: string; turns: StoredTurn[] }> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `WITH made AS (
         INSERT INTO agent.agent_threads (workspace_id, agent_id, thread_key) VALUES ($1, $2, $3)
         ON CONFLICT (workspace_id, agent_id, thread_key) DO NOTHING RETURNING id)
       SELECT id FROM made
       UNION ALL
       SELECT id FROM agent.agent_threads WHERE workspace_id = $1 AND agent_id = $2 AND thread_key = $3
       LIMIT 1`,
      [workspaceId, agentId, threadKey],
    );
    const threadId = rows[0].id;
    const turns: StoredTurn[] = await this.dataSource.query(
      `SELECT role, content, attachments FROM (
         SELECT id, role, content, attachments FROM agent.agent_thread_messages WHERE thread_id = $1 ORDER BY id DESC LIMIT $2
       ) newest ORDER BY id ASC`,
      [threadId, MAX_STORED_TURNS_READ],
    );
    return { threadId, turns };
  }

  /** Appends a finished run's message, answer and tool calls to its thread, all or nothing. */
  async appendTurn(turn: FinishedTurn): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO agent.agent_thread_messages (thread_id, request_id, role, content, attachments) VALUES ($1, $2, 'user', $3, $4::jsonb)`,
        [turn.threadId, turn.requestId, turn.message, JSON.stringify(turn.attachments)],
      );
      const [answer]: Array<{ id: string }> = await manager.query(
        `INSERT INTO agent.agent_thread_messages (thread_id, request_id, role, content) VALUES ($1, $2, 'assistant', $3) RETURNING id`,
        [turn.threadId, turn.requestId, turn.response],
      );
      if (turn.toolCalls.length > 0) {
        const values: unknown[] = [];
        const rows = turn.toolCalls.map((call, index) => {
          values.push(
            turn.threadId,
            answer.id,
            turn.requestId,
            call.toolCallId,
            call.toolName,
            JSON.stringify(call.input ?? null),
            call.observation,
            call.durationMs,
          );
          const base = index * 8;
          return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}::jsonb, $${base + 7}, $${base + 8})`;
        });
        await manager.query(
          `INSERT INTO agent.agent_tool_calls (thread_id, message_id, request_id, tool_call_id, tool_name, input, observation, duration_ms) VALUES ${rows.join(', ')}`,
          values,
        );
      }
      await manager.query(`UPDATE agent.agent_threads SET updated_at = now() WHERE id = $1`, [turn.threadId]);
    });
  }
}
