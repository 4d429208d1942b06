// The header rules are the wire contract's, so the gateway refuses a bad header before it reaches the agent service.
export { MAX_MCP_HEADER_VALUE_BYTES, MAX_MCP_HEADERS, mcpHeaderRefusal, mcpHeaderValueRefusal } from '@waggle/contracts';
