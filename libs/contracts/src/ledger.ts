import type { RunSurface } from './conversation';
import type { FlatMetadata } from './flat-metadata';
import type { CredentialSource } from './governance';
import type { ServedSplit } from './releases';

/**
 * The request ledger's feed: every service that runs (or accepts) a run publishes the run's
 * record, whole, to this JetStream stream each time it changes; the ledger's owner (the
 * invocation service) consumes it in batches into its table. The stream keeps a record until
 * the owner has written it, so nothing is lost while the owner is down or restarting, and
 * no service reads another's tables. Names are wire format.
 */
export const LedgerStream = {
  name: 'WAGGLE_LEDGER',
  /** One message carries a batch of records (a JSON array of LedgerRecord). */
  subject: 'waggle.ledger.records',
  /** The owner's durable consumer: its replicas share the work. */
  consumer: 'ledger-writer',
  /**
   * Marks a message that carries one dead letter (a LedgerDeadLetter, not a batch): a record
   * its publisher could never publish, which the owner stores straight into its dead-letter
   * table.
   */
  deadLetterHeader: 'Waggle-Ledger-Dead-Letter',
} as const;

/**
 * A record its publisher gave up on (it cannot be serialized, JetStream refuses it for its
 * content, or too many records wait during an outage), sent to the ledger's owner so it lands
 * in the same dead-letter table as the records the owner could not write. Always small and
 * plain: `record` is the record's JSON text (cut to a bound when long, a best effort when
 * JSON.stringify threw), so the dead letter itself can always be published and stored.
 */
export interface LedgerDeadLetter {
  request_id: string | null;
  workspace_id: string | null;
  record: string;
  /** True when `record` was cut: such a dead letter is kept for the operator but cannot be replayed. */
  truncated: boolean;
  error: string;
  attempts: number;
  /** The app that gave up on it. */
  publisher: string | null;
}

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** decisions: nothing leaves a terminal state. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export const RUN_KINDS = ['prompt', 'workflow', 'agent'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * What a ledger record is of: a run of the contract's three kinds, or a knowledge base search an
 * MCP client called as a tool (the spec's decisions, MCP: every tool call is a run in the
 * ledger), which has no callbacks, triggers or queues.
 */
export const LEDGER_REQUEST_TYPES = [...RUN_KINDS, 'knowledge_search'] as const;
export type LedgerRequestType = (typeof LEDGER_REQUEST_TYPES)[number];

/** One run's record as it is published: its latest state, complete (a later message replaces it). */
export interface LedgerRecord {
  request_id: string;
  workspace_id: string;
  request_type: LedgerRequestType;
  /** What ran: `prompt_deployment`, `agent`, `workflow_deployment` (`knowledge_base` for an MCP client's search). */
  requestable_type: string;
  requestable_id: string;
  deployment: string | null;
  variant: string | null;
  variant_id: string | null;
  version_id: string | null;
  version: number | null;
  model: string | null;
  status: RunStatus;
  /** The last user message as sent to the model. */
  message: string | null;
  metadata: FlatMetadata;
  /** The caller's user label (decisions: recorded, filterable, never given to the model). */
  user: string | null;
  /** ISO times. */
  generated_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  usage: Record<string, unknown> | null;
  /** The final response, output or error. */
  data: Record<string, unknown> | null;
  /**
   * The W3C trace id (32 hex digits) of the client request that started the run, so an
   * operator goes from a record to its trace. Stamped by LedgerPublisher.save from the active
   * trace when a publisher leaves it out; absent (or null, as stored) for a run recorded outside any trace.
   */
  trace_id?: string | null;
  /** The surface that started the run: `openai` for the OpenAI-compatible API, `mcp` for an MCP tool call; absent (null as stored) for the native routes. */
  surface?: RunSurface | null;
  /**
   * What the run's model calls cost, in integer micro-USD (the spec's decisions on usage
   * governance): every call it made (fallbacks that used tokens, repairs, agent turns, workflow
   * steps) priced at its model's effective price and rounded once, half up. A stream cut short
   * is charged for what it used (estimated when the provider's usage never came). Null (or
   * absent) until the run ends, and for a run that called no model.
   */
  cost_micros?: number | null;
  /** The price version(s) `cost_micros` was computed with (comma-separated when the run's models had different ones). */
  price_version?: string | null;
  /**
   * The API key the run was started with (its id, never the secret): stamped by
   * LedgerPublisher.save from the request context when a publisher leaves it out; the ledger's
   * owner keeps the first one it stored (a background run's worker has no request context).
   */
  api_key_id?: string | null;
  /** Whose provider credentials the run's model calls used: `workspace` only when every call used the workspace's own, null when none was made. */
  credentials?: CredentialSource | null; /** The label a prompt run named (the spec's decisions: invoke additions); absent or null when none. */
  label?: string | null;
  /** For a split variant's run: the target that served it (its `version` above is the target's). */
  split?: ServedSplit | null;
}

/** The cost fields of a run's record, as a run that called models ends with them. */
export type RunCostFields = Required<Pick<LedgerRecord, 'cost_micros' | 'price_version' | 'credentials'>>;

/** What every accepted webhook trigger job carries (the queue's `PromptTriggerJob`, `AgentTriggerJob`). */
export interface AcceptedTriggerJob {
  request_id: string;
  workspace_id: string;
  metadata: FlatMetadata;
  user: string | null;
  accepted_at: string;
}

/** What ran, for a trigger's record: the owner, and what the trigger pinned of it. */
export type TriggeredRun = Pick<LedgerRecord, 'request_type' | 'requestable_type' | 'requestable_id'> &
  Partial<Pick<LedgerRecord, 'variant' | 'variant_id' | 'version_id' | 'message'>>;

/** The answer to a run accepted for later (a webhook trigger, a background invoke): 202 with these. */
export interface AcceptedRun {
  request_id: string;
  run_status: 'queued' | 'running';
}

/**
 * A queued run (webhook trigger, background invoke) as the ledger records it from the moment it
 * is accepted, so it is there even while its runner is down: with nothing run yet, `running`
 * (a trigger, as the spec answers it) or `queued` (a background invoke, `running` once a worker
 * takes it).
 */
export function acceptedTriggerRecord(job: AcceptedTriggerJob, run: TriggeredRun, status: 'queued' | 'running' = 'running'): LedgerRecord {
  return {
    request_id: job.request_id,
    workspace_id: job.workspace_id,
    request_type: run.request_type,
    requestable_type: run.requestable_type,
    requestable_id: run.requestable_id,
    deployment: null,
    variant: run.variant ?? null,
    variant_id: run.variant_id ?? null,
    version_id: run.version_id ?? null,
    version: null,
    model: null,
    status,
    message: run.message ?? null,
    metadata: job.metadata,
    user: job.user,
    generated_at: job.accepted_at,
    started_at: null,
    ended_at: null,
    duration_ms: null,
    usage: null,
    data: null,
  };
}
