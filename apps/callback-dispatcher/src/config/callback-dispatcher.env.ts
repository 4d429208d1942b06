import { EnvVar, ServiceEnv, WithCallbackAllowlist, WithRedis, WithWebhookSecretKey } from '@waggle/platform';
import { IsInt, IsNumber, Matches, Max, Min } from 'class-validator';
import { DURATION_FORMAT, DURATION_LIST_FORMAT } from '../deliveries/delivery-policy';

export class CallbackDispatcherEnv extends WithCallbackAllowlist(WithWebhookSecretKey(WithRedis(ServiceEnv))) {
  override PORT: number = 3106;

  @EnvVar('How long a receiver has to answer a callback, headers and body (ms); a 2xx within it is a success')
  @IsInt()
  @Min(100)
  @Max(300_000)
  CALLBACK_TIMEOUT_MS: number = 15_000;

  @EnvVar('Waits before each retry of a failed callback, comma-separated durations (ms, s, m, h); one attempt plus one per entry')
  @Matches(DURATION_LIST_FORMAT, { message: 'CALLBACK_RETRY_SCHEDULE must be durations like 5s,5m,30m separated by commas' })
  CALLBACK_RETRY_SCHEDULE: string = '5s,5m,30m,2h,5h,10h,10h';

  @EnvVar('Random spread of each retry wait, as a fraction of it (0.1 = ±10%)')
  @IsNumber()
  @Min(0)
  @Max(1)
  CALLBACK_RETRY_JITTER: number = 0.1;

  @EnvVar('Callbacks one dispatcher replica sends at the same time')
  @IsInt()
  @Min(1)
  @Max(10_000)
  CALLBACK_CONCURRENCY: number = 100;

  @EnvVar("Longest wait a receiver's Retry-After is honoured up to (ms, s, m, h); a longer ask waits this long")
  @Matches(DURATION_FORMAT, { message: 'CALLBACK_MAX_RETRY_AFTER must be a duration like 24h' })
  CALLBACK_MAX_RETRY_AFTER: string = '24h';

  @EnvVar(
    'How long a replica holds a delivery without renewing its lock before BullMQ hands it to another replica (ms): the wait before a delivery of a crashed replica is sent again',
  )
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  CALLBACK_LOCK_MS: number = 30_000;
}
