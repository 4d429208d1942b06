import { DatabaseEnv, EnvVar, WithProviderCredentials, WithRedis, WithWebhookSecretKey } from '@waggle/platform';
import { DEFAULT_LEDGER_STREAM_SETTINGS } from '@waggle/platform';
import { IsInt, Max, Min } from 'class-validator';

export class InvocationEnv extends WithWebhookSecretKey(WithProviderCredentials(WithRedis(DatabaseEnv))) {
  override PORT: number = 3101;

  @EnvVar('How long a rotated-out webhook secret keeps working (seconds) when the rotation names no overlap')
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  WEBHOOK_SECRET_OVERLAP_SECONDS: number = 24 * 3600;

  @EnvVar('How often every webhook target is rewritten to the Redis registry (seconds; 0 = only at start and on change)')
  @IsInt()
  @Min(0)
  WEBHOOK_REGISTRY_RESYNC_SECONDS: number = 300;

  @EnvVar('Prompt webhook triggers run at once by each invocation replica')
  @IsInt()
  @Min(1)
  @Max(1000)
  PROMPT_TRIGGER_CONCURRENCY: number = 32;

  @EnvVar('How long a worker holds a prompt trigger without renewing its lock before BullMQ hands the run to another worker (ms): the wait before a run of a crashed replica is retried')
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  PROMPT_TRIGGER_LOCK_MS: number = 30_000;

  @EnvVar('Longest a webhook-triggered run may wait for its provider (ms); past it the call is aborted and the run fails with provider_error')
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  PROMPT_TRIGGER_TIMEOUT_MS: number = 300_000;

  @EnvVar('Copies of the request ledger stream in a NATS cluster (1 on a single NATS server)')
  @IsInt()
  @Min(1)
  @Max(5)
  LEDGER_STREAM_REPLICAS: number = DEFAULT_LEDGER_STREAM_SETTINGS.replicas;

  @EnvVar('Most bytes of run records the ledger stream holds while waiting to be written; past it, publishers are refused and retry')
  @IsInt()
  @Min(1024 * 1024)
  LEDGER_STREAM_MAX_BYTES: number = DEFAULT_LEDGER_STREAM_SETTINGS.maxBytes;
}
