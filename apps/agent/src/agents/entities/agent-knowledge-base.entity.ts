import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A knowledge base an operator attached to an agent: the agent's runs get a
 * `knowledge_search` tool over its attached knowledge bases. The knowledge base belongs to
 * the agent's workspace (checked with the knowledge-base service when attached).
 */
@Entity({ name: 'agent_knowledge_bases' })
export class AgentKnowledgeBaseEntity {
  @PrimaryColumn({ name: 'agent_id', type: 'uuid' })
  agentId!: string;

  @PrimaryColumn({ name: 'knowledge_base_id', type: 'uuid' })
  knowledgeBaseId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
