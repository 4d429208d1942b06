export {
  ARGUMENT_FRAGMENT_CHARS,
  DEFAULT_BEHAVIOUR,
  MAX_EMBEDDING_DIMENSIONS,
  parseBehaviour,
  planAnswer,
  resolveBehaviour,
  splitWords,
  type FakeAnswer,
  type FakeBehaviour,
  type FakeConversation,
  type FakeError,
  type FakeFinish,
  type FakeJsonCase,
  type FakeImage,
  type FakeJsonScript,
  type FakePlannedToolCall,
  type FakeToolCall,
  type FakeTurn,
  type FakeUsage,
  type FakeUsageOverrides,
} from './behaviour';
export { fakeEmbedding } from './embeddings';
export { invalidInstance, minimalInstance, type FakeStructuredMode, type FakeStructuredRequest } from './structured';
export {
  FakeProviderServer,
  type FakeGate,
  type FakeProtocol,
  type FakeProviderOptions,
  type FakeRequestRecord,
} from './fake-provider.server';
export { FakeSearchServer, searchSlug, type FakeSearchRequestRecord, type FakeSearchServerOptions } from './fake-search.server';
export {
  defaultFakeMcpTools,
  FAKE_MCP_HUGE_BYTES,
  FakeMcpServer,
  type FakeMcpCallRecord,
  type FakeMcpEra,
  type FakeMcpGate,
  type FakeMcpOverride,
  type FakeMcpRequestRecord,
  type FakeMcpServerOptions,
  type FakeMcpTool,
} from './fake-mcp.server';
export { integerFromEnv, runFakeServer, tlsFromEnv } from './fake-process';
