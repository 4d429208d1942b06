import { DatabaseEnv, WithRedis } from '@waggle/platform';

export class CallbackDispatcherEnv extends WithRedis(DatabaseEnv) {
  override PORT: number = 3106;
}
