import { DatabaseEnv, WithRedis } from '@waggle/platform';

export class InvocationEnv extends WithRedis(DatabaseEnv) {
  override PORT: number = 3101;
}
