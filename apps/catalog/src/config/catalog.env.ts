import { ServiceEnv } from '@waggle/platform';

export class CatalogEnv extends ServiceEnv {
  override PORT: number = 3105;
}
