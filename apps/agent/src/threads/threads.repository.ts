import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataRepository, defineSql, sql, type RowOf } from '@waggle/database';
import type { DataSource } from 'typeorm';
import type { AgentThreadMessageEntity } from './entities/agent-thread-message.entity';
import type { AgentThreadEntity } from './entities/agent-thread.entity';
import type { FinishedTurn, OpenedThread } from './thread-turns';

/** Stored turns read back at most (newest kept); windowing to the model's context cuts further. */
export const MAX_STORED_TURNS_READ = 400;

const SQL = defineSql(__filename, {
  open: sql<Pick<RowOf<AgentThreadEntity>, 'id'>>(`
    WITH made AS (
      INSERT INTO "agent"."agent_threads" ("workspace_id", "agent_id", "thread_key") VALUES ($1, $2, $3)
      ON CONFLICT ("workspace_id", "agent_id", "thread_key") DO NOTHING RETURNING "id")
    SELECT "id" FROM made
    UNION ALL
    SELECT "id" FROM "agent"."agent_threads" WHERE "workspace_id" = $1 AND "agent_id" = $2 AND "thread_key" = $3
    LIMIT 1`),
  newestTurns: sql<Pick<RowOf<AgentThreadMessageEntity>, 'role' | 'content' | 'attachments'>>(`
    SELECT "role", "content", "attachments" FROM (
      SELECT "id", "role", "content", "attachments" FROM "agent"."agent_thread_messages" WHERE "thread_id" = $1 ORDER BY "id" DESC LIMIT $2
    ) newest ORDER BY "id" ASC`),
  insertMessage: sql(`
    INSERT INTO "agent"."agent_thread_messages" ("thread_id", "request_id", "role", "content", "attachments")
    VALUES ($1, $2, 'user', $3, $4::jsonb)`),
  insertAnswer: sql<Pick<RowOf<AgentThreadMessageEntity>, 'id'>>(`
    INSERT INTO "agent"."agent_thread_messages" ("thread_id", "request_id", "role", "content")
    VALUES ($1, $2, 'assistant', $3)
    RETURNING "id"`),
  // One row per element of the arrays, in their order (the ids follow it).
  insertToolCalls: sql(`
    INSERT INTO "agent"."agent_tool_calls"
      ("thread_id", "message_id", "request_id", "tool_call_id", "tool_name", "input", "observation", "duration_ms")
    SELECT $1::uuid, $2::bigint, $3::text, t."tool_call_id", t."tool_name", t."input", t."observation", t."duration_ms"
    FROM unnest($4::text[], $5::text[], $6::jsonb[], $7::text[], $8::integer[])
      WITH ORDINALITY AS t("tool_call_id", "tool_name", "input", "observation", "duration_ms", "ordinality")
    ORDER BY t."ordinality"`),
  touch: sql(`UPDATE "agent"."agent_threads" SET "updated_at" = now() WHERE "id" = $1`),
});

/**
 * Every query of agent threads (a thread, its messages and its tool calls), in SQL: no entity
 * hydration on the request path.
 */
@Injectable()
export class ThreadsRepository extends DataRepository {
  constructor(@InjectDataSource() dataSource: DataSource) {
    super(dataSource);
  }

  /** The thread named by the caller's key, made on first use, with its newest stored turns (oldest first). */
  async open(workspaceId: string, agentId: string, threadKey: string): Promise<OpenedThread> {
    // The statement answers the one row it made or found.
    const [thread] = await this.rows(SQL.open, [workspaceId, agentId, threadKey]);
    const threadId = thread.id;
    const turns = await this.rows(SQL.newestTurns, [threadId, MAX_STORED_TURNS_READ]);
    return { threadId, turns };
  }

  /** Appends a finished run's message, answer and tool calls to its thread, all or nothing. */
  appendTurn(turn: FinishedTurn): Promise<void> {
    return this.transaction(async () => {
      await this.execute(SQL.insertMessage, [turn.threadId, turn.requestId, turn.message, JSON.stringify(turn.attachments)]);
      const [answer] = await this.rows(SQL.insertAnswer, [turn.threadId, turn.requestId, turn.response]);
      const calls = turn.toolCalls;
      if (calls.length > 0) {
        await this.execute(SQL.insertToolCalls, [
          turn.threadId,
          answer.id,
          turn.requestId,
          calls.map((call) => call.toolCallId),
          calls.map((call) => call.toolName),
          calls.map((call) => JSON.stringify(call.input ?? null)),
          calls.map((call) => call.observation),
          calls.map((call) => call.durationMs),
        ]);
      }
      await this.execute(SQL.touch, [turn.threadId]);
    });
  }
}
