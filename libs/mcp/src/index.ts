export {
  McpConnector,
  MAX_MCP_CALL_MS,
  MAX_MCP_RESPONSE_BYTES,
  MCP_TEST_TIMEOUT_MS,
  type McpConnectorOptions,
  type McpServerConnection,
} from './mcp-connector';
export { connectionErrorOf, MCP_FAILURE_STAGES, secretMasker, McpConnectionError, type McpFailureStage } from './connection-error';
export { MAX_MCP_TOOL_RESULT_BYTES, toolResultOf, truncateToolText, type McpToolResult } from './tool-result';
export {
  compareToolSnapshots,
  MAX_MCP_TOOLS_PER_SERVER,
  toolDefinitionHash,
  toolSnapshotHash,
  toolSnapshotOf,
  type McpToolSnapshot,
} from './tool-snapshot';
export { MAX_MODEL_TOOL_NAME_LENGTH, McpToolNames, modelToolName } from './tool-names';
export { MAX_MCP_HEADER_VALUE_BYTES, MAX_MCP_HEADERS, mcpHeaderRefusal, mcpHeaderValueRefusal } from './header-policy';
