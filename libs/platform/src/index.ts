export {
  BaseEnv,
  ConfigError,
  DatabaseEnv,
  EnvVar,
  LOG_LEVELS,
  ServiceEnv,
  WithCallbackAllowlist,
  WithProviderCredentials,
  WithRedis,
  WithWebhookOwner,
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
  requestIdTime,
  requestContext,
  type RequestContextStore,
} from './context/request-context';
export { createAccessLog } from './logging/access-log';
export { contained, reportContained, type RequestIdOf } from './reliability/contained';
export {
  contextFields,
  isWellFormedURIComponent,
  loggerModuleParams,
  pinoOptions,
  redactCredentials,
  redactUrl,
  safeDecodeURIComponent,
} from './logging/logger-options';
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
export { BroadcastCache, type BroadcastCacheOptions } from './nats/broadcast-cache';
export {
  createPayloadPipe,
  createValidationPipe,
  VALIDATION_PIPE_OPTIONS,
  validationExceptionFactory,
  type FieldProblem,
} from './nats/validation';
export { CompiledValidationPipe, compileBodyValidator, type CompiledBodyValidator } from './validation/compiled-validation';
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
export {
  Admission,
  OVERLOAD_RETRY_AFTER_SECONDS,
  shedReason,
  timeWeightedDelayMs,
  type AdmissionLimits,
  type Intake,
  type ShedReason,
} from './overload/overload';
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
export { GroupCommit, type GroupCommitOptions } from './database/group-commit';
export { APP_ENV, APP_NAME, PlatformModule, ShutdownFlushes, type PlatformOptions } from './app/platform.module';
export { serveRpcHandlers, startServiceApp, type ServiceAppSpec } from './app/create-service-app';
export { exitOnStartupFailure, installGracefulShutdown, installProcessSafetyNet } from './app/run-app';
export { runMain } from './app/run-main';
export {
  QueueProcessor,
  QueueWorker,
  queueTelemetry,
  STALLS_BEFORE_DEAD_LETTER,
  type QueueWorkerSettings,
  type StaticWorkerOptions,
} from './queues/queue-worker';
export {
  BatchedEnqueue,
  enqueue,
  enqueueBulk,
  JOB_RETENTION,
  queueRootModule,
  registerQueues,
  type JobQueue,
  type JobRetryOverrides,
  type QueueRootOptions,
} from './queues/queue-producer';
export { countDeadLettersWith, observeQueue, QUEUE_STATES, readQueue, type QueueReading, type QueueState } from './queues/queue-metrics';
export { FILE_STAGING_TTL_MS, FileStaging } from './files/file-staging';
export { describeFailure, isTransientFailure } from './reliability/failure-kind';
export { cappedBackoffMs, OutageLog, type BackoffSettings } from './reliability/outage-log';
export { cutText, jsonText } from './reliability/json-text';
export { deadLetterNotFound, type DeadLetterSource } from './dead-letters/dead-letter-source';
export { QueueDeadLetters } from './dead-letters/queue-dead-letters';
export { type DeadLetterOptions } from './dead-letters/dead-letters.controller';
export { canonicalJson, contentHashOf, type KeyOrder } from './hashing/content-hash';
