import { McpServerEntity } from './mcp-server.entity';

export const MCP_SERVER_ENTITIES = [McpServerEntity];
