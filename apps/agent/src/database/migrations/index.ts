import type { MigrationInterface } from 'typeorm';
import { CreateAgents1795447952304 } from './1795447952304-create-agents';
import { AddThreads1795450036333 } from './1795450036333-add-threads';
import { AddAgentKnowledgeBases1795452648948 } from './1795452648948-add-agent-knowledge-bases';
import { AddAgentFallbacksResponseFormat1795562328886 } from './1795562328886-add-agent-fallbacks-response-format';
import { AddAgentMcp1795890318205 } from './1795890318205-add-agent-mcp';
import { AddAgentPublish1795890411571 } from './1795890411571-add-agent-publish';
import { AddMcpServers1795890740924 } from './1795890740924-add-mcp-servers';
import { AddAgentCredentials1795901000826 } from './1795901000826-add-agent-credentials';

/** Every migration of this service, oldest first. `npm run migration:generate` appends here. */
export const MIGRATIONS: Array<new () => MigrationInterface> = [
  CreateAgents1795447952304,
  AddThreads1795450036333,
  AddAgentKnowledgeBases1795452648948,
  AddAgentFallbacksResponseFormat1795562328886,
  AddAgentMcp1795890318205,
  AddAgentPublish1795890411571,
  AddMcpServers1795890740924,
  AddAgentCredentials1795901000826,
];
