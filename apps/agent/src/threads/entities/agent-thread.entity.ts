import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * A conversation thread of one agent (decisions: a `thread_id` is scoped to its agent and
 * workspace): made by the first call naming it, appended to by later ones.
 */
@Entity({ name: 'agent_threads' })
@Index('UQ_agent_threads_key', ['workspaceId', 'agentId', 'threadKey'], { unique: true })
export class AgentThreadEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId!: string;

  @Column({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  /** The caller's `thread_id`, as sent. */
  @Column({ name: 'thread_key', type: 'text' })
  threadKey!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
