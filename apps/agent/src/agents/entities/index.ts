import { AgentKnowledgeBaseEntity } from './agent-knowledge-base.entity';
import { AgentEntity } from './agent.entity';

export const AGENT_ENTITIES = [AgentEntity, AgentKnowledgeBaseEntity];
