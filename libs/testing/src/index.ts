export { expectEventually, type EventuallyOptions } from './expect-eventually';
export { freePort } from './free-port';
export { REPO_ROOT, spawnApp, waitUntilLive, type AppProcess } from './app-process';
export { OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { cliJson } from './cli';
export { FakeProviderServer, type FakeBehaviour, type FakeRequestRecord } from '@waggle/fake-provider';
export { collectSse, readSse } from './sse';
export { CallbackReceiver, type ReceivedCallback, type ScriptedAnswer } from './callback-receiver';
export { fakeModel, loadCatalogWithFakeModels } from './fake-catalog';
