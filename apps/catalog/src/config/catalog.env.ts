import { DatabaseEnv } from '@waggle/platform';

export class CatalogEnv extends DatabaseEnv {
  override PORT: number = 3105;
}
