export {
  BaseEnv,
  ConfigError,
  DatabaseEnv,
  EnvVar,
  LOG_LEVELS,
  WithCallbackAllowlist,
  WithProviderCredentials,
  WithRedis,
  WithWebhookSecretKey,
  WithWebTools,
  WEB_SEARCH_PROVIDER_CHOICES,
  describeEnv,
  loadAppEnvClass,
  loadConfig,
  type EnvVarInfo,
  type LogLevel,
} from './config/env';
export {
  REQUEST_ID_PATTERN,
  msUntilDeadline,
  newErrorId,
  newRequestId,
  requestContext,
  type RequestContextStore,
} from './context/request-context';
export { contextFields, loggerModuleParams, pinoOptions, redactCredentials, redactUrl } from './logging/logger-options';
export { ClaimCheck, ClaimGoneError, type WireMessage } from './nats/claim-check';
export { NatsRpcClient, toUpstreamException } from './nats/nats-rpc.client';
export {
  CONFIGURATION_EXIT_CODE,
  exitOnNatsCredentialsRefused,
  isNatsCredentialsRefusal,
  natsConnectionOptions,
  natsCredentialsRefusedLine,
  watchNatsCredentials,
  type NatsCredentialsRefused,
  type NatsEnv,
  type NatsRefusalPhase,
} from './nats/nats-connection';
export { RunCancellation } from './nats/run-cancellation';
export { createPayloadPipe, createValidationPipe, validationExceptionFactory, type FieldProblem } from './nats/validation';
export {
  MAX_INPUT_DEPTH,
  StorableInputPipe,
  assertStorableInput,
  findUnstorableInput,
  type UnstorableInput,
} from './validation/storable-input';
export {
  RPC_HANDLERS,
  RpcHandler,
  UncontractedRpcHandler,
  type RpcHandlerMethod,
  type RpcHandlerMismatch,
  type RpcHandlerResult,
} from './nats/rpc-handler';
export { GracefulNatsServer, type RpcMessageHandler } from './nats/graceful-nats.server';
export { natsHeaderGetter, natsHeaderSetter, startNatsClientSpan, startNatsServerSpan } from './nats/trace-propagation';
export { HealthController } from './health/health.controller';
export { createHealthPingController } from './health/health-ping.controller';
export { DependencyIndicators, NATS_CONNECTION_SOURCE, REDIS_CLIENT, withTimeout, type NatsConnectionSource } from './health/indicators';
export {
  APP_DEPENDENCIES,
  READINESS_REPORTERS,
  ReadinessService,
  type Dependency,
  type ReadinessReporter,
} from './health/readiness.service';
export { ShutdownState } from './health/shutdown-state';
export {
  LEDGER_FLUSH_INTERVAL_MS,
  LEDGER_PUBLISH_ATTEMPTS,
  LedgerPublisher,
  type LedgerPublisherSettings,
} from './ledger/ledger-publisher';
export { DEFAULT_LEDGER_STREAM_SETTINGS, ensureLedgerStream, type LedgerStreamSettings } from './ledger/ledger-stream';
export { GroupCommit, type GroupCommitOptions } from './database/group-commit';
export { serviceDataSourceOptions, type PostgresDataSourceOptions, type ServiceDataSourceSpec } from './database/data-source-options';
export { APP_ENV, APP_NAME, PlatformModule, type PlatformOptions } from './app/platform.module';
export { serveRpcHandlers, startServiceApp, type ServiceAppSpec } from './app/create-service-app';
export { exitOnStartupFailure, installGracefulShutdown, installProcessSafetyNet } from './app/run-app';
export { runMain } from './app/run-main';
export { QueueWorker, queueTelemetry, type QueueWorkerSettings } from './queues/queue-worker';
export { JOB_RETENTION, QueueProducer } from './queues/queue-producer';
export { countDeadLettersWith, observeQueue, QUEUE_STATES, readQueue, type QueueReading, type QueueState } from './queues/queue-metrics';
export {
  ensureDatabase,
  migrateAll,
  migrationStatus,
  type MigrateOptions,
  type MigrationReport,
  type MigrationStatus,
  type ServiceMigrationTarget,
} from './database/migrate';
export {
  MIGRATIONS_INDEX,
  diffEntitiesAgainstMigrations,
  generateMigration,
  migrationNames,
  pendingSchemaChanges,
  registerMigration,
  renderMigration,
  type GenerateMigrationOptions,
  type GenerateMigrationResult,
  type MigrationNames,
  type SchemaDiff,
  type SchemaQuery,
} from './database/generate-migration';
export { FILE_STAGING_TTL_MS, FileStaging } from './files/file-staging';
export { describeFailure, isTransientFailure } from './reliability/failure-kind';
export { cappedBackoffMs, OutageLog, type BackoffSettings } from './reliability/outage-log';
export { cutText, jsonText } from './reliability/json-text';
export { deadLetterNotFound, type DeadLetterSource } from './dead-letters/dead-letter-source';
export { QueueDeadLetters, type QueueDeadLetterOptions } from './dead-letters/queue-dead-letters';
export { type DeadLetterOptions } from './dead-letters/dead-letters.controller';
