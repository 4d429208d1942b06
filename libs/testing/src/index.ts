export { expectEventually, type EventuallyOptions } from './expect-eventually';
export { freePort } from './free-port';
export { REPO_ROOT, spawnApp, waitUntilLive, type AppProcess } from './app-process';
export { OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export { applyDefinitions, cliJson, cliJsonLines } from './cli';
export {
  FakeProviderServer,
  FakeSearchServer,
  searchSlug,
  type FakeBehaviour,
  type FakeRequestRecord,
  type FakeSearchRequestRecord,
  type FakeSearchServerOptions,
} from '@waggle/fake-provider';
export { collectSse, readSse, readSseEvents, type SseEvent } from './sse';
export { CallbackReceiver, type ReceivedCallback, type ScriptedAnswer } from './callback-receiver';
export { FAKE_MODEL_PRICING, fakeModel, loadCatalogWithFakeModels } from './fake-catalog';
export { startServiceUnderTest, type ServiceUnderTest } from './service-under-test';
export { describeServiceBasics } from './service-basics';
export { createTestCertificates, TestHttpsServer, type TestCertificates, type TestHttpsRequest, type TestRoute } from './test-https-server';
export { buildFixtureDocuments, type FixtureDocument, type FixtureDocumentType } from './fixture-documents';
export { knowledgeBaseWithDocument, type KnowledgeBaseDocument, type KnowledgeBaseOwner } from './knowledge-base-fixture';
export { OwnServer, startOwnNats, startOwnPostgres, startOwnRedis, type OwnNatsOptions } from './own-infrastructure';
export { createNatsOperatorTrust, natsCredsFile, type NatsOperatorTrust } from './nats-credentials';
export { histogramCount, labelSets, sampleSum, scrapeMetrics, type PromMetrics } from './metrics-scrape';
export {
  dashboardExpressions,
  GRAFANA_DASHBOARD_PATH,
  metricNamesIn,
  readGrafanaDashboard,
  type GrafanaDashboard,
  type GrafanaPanel,
} from './grafana-dashboard';
export { failure } from './failure';
export { recordSpansInProcess, type InProcessSpans } from './in-process-spans';
export { useMigrationClient, type MigrationClient } from './migration-client';
export { racedWrites } from './raced-writes';
