import {
  EnvVar,
  ServiceEnv,
  WithCallbackAllowlist,
  WithProviderCredentials,
  WithRedis,
  WithWebhookOwner,
  WithWebhookSecretKey,
  WithWebTools,
} from '@waggle/platform';
import { EXPERIMENT_CELL_LIMIT_DEFAULT } from '@waggle/contracts';
import { DEFAULT_LEDGER_STREAM_SETTINGS } from '@waggle/runs';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';

// The callback allowlist: budgets' alert URLs are checked against the callback URL policy where they are stored.
export class InvocationEnv extends WithCallbackAllowlist(
  WithWebhookOwner(WithWebTools(WithWebhookSecretKey(WithProviderCredentials(WithRedis(ServiceEnv))))),
) {
  override PORT: number = 3101;

  @EnvVar('Prompt webhook triggers run at once by each invocation replica')
  @IsInt()
  @Min(1)
  @Max(1000)
  PROMPT_TRIGGER_CONCURRENCY: number = 32;

  @EnvVar(
    'How long a worker holds a prompt trigger without renewing its lock before BullMQ hands the run to another worker (ms): the wait before a run of a crashed replica is retried',
  )
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  PROMPT_TRIGGER_LOCK_MS: number = 30_000;

  @EnvVar(
    'Longest a webhook-triggered run may wait for its provider (ms); past it the call is aborted and the run fails with provider_error',
  )
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  PROMPT_TRIGGER_TIMEOUT_MS: number = 300_000;

  @EnvVar('Workflow runs executed at once by each invocation replica (their steps mostly wait on providers)')
  @IsInt()
  @Min(1)
  @Max(1000)
  WORKFLOW_RUN_CONCURRENCY: number = 50;

  @EnvVar(
    'Async workflow runs each invocation replica executes where they were admitted, at once, without the queue hop; beyond it they go through the workflow-runs queue (0: always). Sync runs always run where admitted',
  )
  @IsInt()
  @Min(0)
  @Max(1000)
  WORKFLOW_LOCAL_RUN_CONCURRENCY: number = 50;

  @EnvVar(
    'How long a worker holds a workflow run without renewing its lease (ms); it renews every third of it. A run whose worker died is taken by another worker after about this long',
  )
  @IsInt()
  @Min(500)
  @Max(600_000)
  WORKFLOW_LEASE_MS: number = 30_000;

  @EnvVar('How long after its lease lapsed a running workflow run that no worker took over is failed by the reaper (ms)')
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  WORKFLOW_REAPER_GRACE_MS: number = 60_000;

  @EnvVar('How often each replica looks for workflow runs to fail (dead worker, time-out) and queued runs to start (ms)')
  @IsInt()
  @Min(100)
  @Max(600_000)
  WORKFLOW_REAPER_INTERVAL_MS: number = 5_000;

  @EnvVar('Longest a workflow run may take from its start (ms); past it the run fails')
  @IsInt()
  @Min(1_000)
  @Max(24 * 3_600_000)
  WORKFLOW_RUN_TIMEOUT_MS: number = 20 * 60_000;

  @EnvVar(
    'How long a sync workflow invoke waits for its run (ms; decisions: 300 s). Past it the call answers with the request id and the run goes on',
  )
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  WORKFLOW_SYNC_TIMEOUT_MS: number = 300_000;

  @EnvVar('How often a waiting sync workflow invoke re-reads its run in case the finished message was lost (ms)')
  @IsInt()
  @Min(100)
  @Max(60_000)
  WORKFLOW_SYNC_RECHECK_MS: number = 2_000;

  @EnvVar(
    'Hosts, IP addresses or CIDR ranges an http workflow step may call although they are not public https hosts (comma-separated; empty in production)',
  )
  @IsString()
  WORKFLOW_HTTP_URL_ALLOWLIST: string = '';

  @EnvVar(
    "Hosts, IP addresses or CIDR ranges a workspace's provider base URL (its own provider credentials) may point at although they are not public https hosts (comma-separated, as CALLBACK_URL_ALLOWLIST; empty in production)",
  )
  @IsString()
  PROVIDER_URL_ALLOWLIST: string = '';

  @EnvVar(
    'A PEM file of extra certificate authorities trusted by scrape steps (besides the public ones and NODE_EXTRA_CA_CERTS); verification stays on',
  )
  @IsString()
  SCRAPE_EXTRA_CA_FILE: string = '';

  @EnvVar('Copies of the request ledger stream in a NATS cluster (1 on a single NATS server)')
  @IsInt()
  @Min(1)
  @Max(5)
  LEDGER_STREAM_REPLICAS: number = DEFAULT_LEDGER_STREAM_SETTINGS.replicas;

  @EnvVar('Most bytes of run records the ledger stream holds while waiting to be written; past it, publishers are refused and retry')
  @IsInt()
  @Min(1024 * 1024)
  LEDGER_STREAM_MAX_BYTES: number = DEFAULT_LEDGER_STREAM_SETTINGS.maxBytes;

  @EnvVar('Most cells (dataset rows × active candidates) an experiment run may have; a larger run is refused before anything is written')
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  EXPERIMENT_CELL_LIMIT: number = EXPERIMENT_CELL_LIMIT_DEFAULT;

  @EnvVar('Experiment cells (each a prompt run and its evaluators) each invocation replica runs at once')
  @IsInt()
  @Min(1)
  @Max(1000)
  EXPERIMENT_CELL_CONCURRENCY: number = 4;

  @EnvVar(
    'How long a worker holds an experiment cell without renewing its lock before BullMQ hands it to another worker (ms): how soon the cells of a crashed replica run elsewhere',
  )
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  EXPERIMENT_CELL_LOCK_MS: number = 15_000;

  @EnvVar(
    "The embedding model (a catalog model id) of experiment runs' `similarity` evaluators; the default, as the knowledge base's, runs in the service without a key or network",
  )
  @IsString()
  @Length(1, 200)
  EXPERIMENT_EMBEDDING_MODEL: string = 'universal-sentence-encoder-lite';
}
