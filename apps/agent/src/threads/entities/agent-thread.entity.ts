import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimestampColumns } from '@waggle/database';

/**
 * A conversation thread of one agent (decisions: a `thread_id` is scoped to its agent and
 * workspace): made by the first call naming it, appended to by later ones.
 */
@Entity({ name: 'agent_threads' })
@Index('UQ_agent_threads_key', ['workspaceId', 'agentId', 'threadKey'], { unique: true })
export class AgentThreadEntity extends TimestampColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  /** The caller's `thread_id`, as sent. */
  @Column({ name: 'thread_key', type: 'text' })
  threadKey!: string;
}
