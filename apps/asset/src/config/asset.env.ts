import { DatabaseEnv } from '@waggle/platform';

export class AssetEnv extends DatabaseEnv {
  override PORT: number = 3104;
}
