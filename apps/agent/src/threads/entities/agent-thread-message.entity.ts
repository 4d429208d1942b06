import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { StoredAttachment } from '../thread-turns';

/** One turn of a thread: the caller's message (with its attachments) or the agent's answer. */
@Entity({ name: 'agent_thread_messages' })
@Index('IDX_agent_thread_messages_thread', ['threadId', 'id'])
export class AgentThreadMessageEntity {
  /** Also the order of the thread's messages. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  @Column({ name: 'thread_id', type: 'uuid' })
  threadId!: string;

  /** The run that wrote it. */
  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @Column({ type: 'text' })
  role!: 'user' | 'assistant';

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attachments!: StoredAttachment[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
