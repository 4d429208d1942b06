import { DatabaseEnv, WithRedis } from '@waggle/platform';

export class KnowledgeBaseEnv extends WithRedis(DatabaseEnv) {
  override PORT: number = 3103;
}
