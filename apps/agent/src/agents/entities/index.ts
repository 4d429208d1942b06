import { AgentEntity } from './agent.entity';

export const AGENT_ENTITIES = [AgentEntity];
