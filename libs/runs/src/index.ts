// The run lifecycle: what prompts, agents and workflows share from a run's start to its end
// (the ledger record, cancellation, the kept event log, trigger queues and the announcement).
// Infrastructure (NATS, queues, config, logging) stays in @waggle/platform.
export { RunLifecycleModule } from './run-lifecycle.module';
export {
  isCancelledByRequest,
  REMEMBERED_CANCELS,
  RunCancellation,
  RunCancelled,
  RunCancelMarks,
  runCancelMarkKey,
  runCancelledError,
  type TrackedRun,
} from './cancellation/run-cancellation';
export {
  RUN_EVENTS_KEPT_AFTER_END_MS,
  RUN_EVENTS_KEY_PREFIX,
  RUN_EVENTS_RUNNING_TTL_MS,
  RUN_LOG_IDLE,
  RunEventLog,
  type RunLogEntry,
  type RunLogHead,
} from './events/run-event-log';
export {
  LEDGER_FLUSH_INTERVAL_MS,
  LEDGER_PUBLISH_ATTEMPTS,
  LedgerPublisher,
  type LedgerPublisherSettings,
} from './ledger/ledger-publisher';
export { LedgerRun, type StartedRun } from './ledger/ledger-run';
export { DEFAULT_LEDGER_STREAM_SETTINGS, ensureLedgerStream, type LedgerStreamSettings } from './ledger/ledger-stream';
export { announceRunEnd, type RunCallback, type RunEnd, type RunEndChannels, type RunResult } from './announce/announce-run-end';
export { CANCELLED_RUN_DATA, isFinishedRun, runCallbackBody, type FinishedRun, type RunRecord } from './announce/run-callback-body';
export { acceptQueuedRun, TriggerWorker, type TriggeredKind, type TriggeredRun, type TriggerQueue } from './triggers/trigger-worker';
export { runCredentials } from './credentials/run-credentials';
