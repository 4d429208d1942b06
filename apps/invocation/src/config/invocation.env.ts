import { DatabaseEnv, WithProviderCredentials, WithRedis } from '@waggle/platform';

export class InvocationEnv extends WithProviderCredentials(WithRedis(DatabaseEnv)) {
  override PORT: number = 3101;
}
