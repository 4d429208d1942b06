import { DatabaseEnv, WithRedis } from '@waggle/platform';

export class AgentEnv extends WithRedis(DatabaseEnv) {
  override PORT: number = 3102;
}
