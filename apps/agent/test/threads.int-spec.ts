import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source';
import type { FinishedTurn } from '../src/threads/thread-turns';
import { ThreadsRepository } from '../src/threads/threads.repository';

/** What a run stores of its threaded turns, and reads back on the next one, against the migrated schema. */
describe('ThreadsRepository', () => {
  let dataSource: DataSource;
  let threads: ThreadsRepository;
  const workspaceId = randomUUID();
  const agentId = randomUUID();

  beforeAll(async () => {
    dataSource = await new DataSource(dataSourceOptions(process.env.DATABASE_URL as string)).initialize();
    threads = new ThreadsRepository(dataSource);
  });

  afterAll(() => dataSource?.destroy());

  const turn = (threadId: string, requestId: string, extra: Partial<FinishedTurn> = {}): FinishedTurn => ({
    threadId,
    requestId,
    message: `question ${requestId}`,
    attachments: [],
    response: `answer ${requestId}`,
    toolCalls: [],
    ...extra,
  });

  it('makes a thread on the first open of its key and finds the same one after, scoped to the agent', async () => {
    const first = await threads.open(workspaceId, agentId, 'made-once');
    expect(first).toEqual({ threadId: expect.any(String), turns: [] });
    expect(await threads.open(workspaceId, agentId, 'made-once')).toEqual(first);
    expect((await threads.open(workspaceId, randomUUID(), 'made-once')).threadId).not.toBe(first.threadId);
  });

  it('appends a turn with its attachments and tool calls, in order, each call tied to the answer', async () => {
    const { threadId } = await threads.open(workspaceId, agentId, 'with-tools');
    const attachments = [{ url: 'https://files.example/a.pdf', kind: 'document' as const, name: 'a.pdf' }];
    await threads.appendTurn(
      turn(threadId, 'req-1', {
        attachments,
        toolCalls: [
          {
            toolCallId: 'c1',
            toolName: 'read_file',
            input: { file_url: 'https://files.example/a.pdf' },
            observation: '{"text":"A"}',
            durationMs: 12,
          },
          { toolCallId: 'c2', toolName: 'knowledge_search', input: 'say "hi" \\ there', observation: '{"results":[]}', durationMs: 0 },
          { toolCallId: 'c3', toolName: 'read_file', input: undefined, observation: '{"error":"x"}', durationMs: 3 },
        ],
      }),
    );
    await threads.appendTurn(turn(threadId, 'req-2'));

    expect((await threads.open(workspaceId, agentId, 'with-tools')).turns).toEqual([
      { role: 'user', content: 'question req-1', attachments },
      { role: 'assistant', content: 'answer req-1', attachments: [] },
      { role: 'user', content: 'question req-2', attachments: [] },
      { role: 'assistant', content: 'answer req-2', attachments: [] },
    ]);
    const calls = await dataSource.query(
      `SELECT c.tool_call_id, c.tool_name, c.input, c.observation, c.duration_ms, c.request_id, m.role, m.request_id AS message_request
       FROM agent.agent_tool_calls c JOIN agent.agent_thread_messages m ON m.id = c.message_id
       WHERE c.thread_id = $1 ORDER BY c.id`,
      [threadId],
    );
    const answer = { request_id: 'req-1', role: 'assistant', message_request: 'req-1' };
    expect(calls).toEqual([
      {
        tool_call_id: 'c1',
        tool_name: 'read_file',
        input: { file_url: 'https://files.example/a.pdf' },
        observation: '{"text":"A"}',
        duration_ms: 12,
        ...answer,
      },
      {
        tool_call_id: 'c2',
        tool_name: 'knowledge_search',
        input: 'say "hi" \\ there',
        observation: '{"results":[]}',
        duration_ms: 0,
        ...answer,
      },
      { tool_call_id: 'c3', tool_name: 'read_file', input: null, observation: '{"error":"x"}', duration_ms: 3, ...answer },
    ]);
  });

  it('stores a turn all or nothing: a tool call the table refuses leaves neither the message nor the answer', async () => {
    const { threadId } = await threads.open(workspaceId, agentId, 'refused');
    const refused = turn(threadId, 'req-bad', {
      // duration_ms is an integer column.
      toolCalls: [{ toolCallId: 'c1', toolName: 'read_file', input: {}, observation: '{}', durationMs: 1.5 }],
    });
    await expect(threads.appendTurn(refused)).rejects.toThrow();
    expect((await threads.open(workspaceId, agentId, 'refused')).turns).toEqual([]);
  });
});
