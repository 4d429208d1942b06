import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Every tool call of a threaded run: what the model asked, what the tool answered, how long it took. */
@Entity({ name: 'agent_tool_calls' })
@Index('IDX_agent_tool_calls_thread', ['threadId', 'id'])
export class AgentToolCallEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  @Column({ name: 'thread_id', type: 'uuid' })
  threadId!: string;

  /** The agent's answer this call led to. */
  @Column({ name: 'message_id', type: 'bigint' })
  messageId!: string;

  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @Column({ name: 'tool_call_id', type: 'text' })
  toolCallId!: string;

  @Column({ name: 'tool_name', type: 'text' })
  toolName!: string;

  @Column({ type: 'jsonb' })
  input!: unknown;

  /** The observation as the model got it (JSON text). */
  @Column({ type: 'text' })
  observation!: string;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
