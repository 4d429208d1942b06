import { DatabaseEnv, EnvVar, WithRedis, WithWebhookSecretKey } from '@waggle/platform';
import { IsInt, Max, Min } from 'class-validator';

export class AgentEnv extends WithWebhookSecretKey(WithRedis(DatabaseEnv)) {
  override PORT: number = 3102;

  @EnvVar('How long a rotated-out webhook secret keeps working (seconds) when the rotation names no overlap')
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  WEBHOOK_SECRET_OVERLAP_SECONDS: number = 24 * 3600;

  @EnvVar('How often every webhook target is rewritten to the Redis registry (seconds; 0 = only at start and on change)')
  @IsInt()
  @Min(0)
  WEBHOOK_REGISTRY_RESYNC_SECONDS: number = 300;
}
