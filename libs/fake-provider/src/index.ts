export {
  DEFAULT_BEHAVIOUR,
  parseBehaviour,
  planAnswer,
  resolveBehaviour,
  splitWords,
  type FakeAnswer,
  type FakeBehaviour,
  type FakeConversation,
  type FakeError,
  type FakeFinish,
  type FakeUsage,
  type FakeUsageOverrides,
} from './behaviour';
export { FakeProviderServer, type FakeProtocol, type FakeProviderOptions, type FakeRequestRecord } from './fake-provider.server';
