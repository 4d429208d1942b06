import type { AppName } from '@waggle/contracts';
import type { BaseEnv } from '@waggle/platform';
import { join } from 'node:path';

export type EnvClass = new () => BaseEnv;

/** Each app's env class, loaded by path: a tool must not import apps. */
export function envClassOf(app: AppName, appsDir: string): EnvClass {
  const exports = require(join(appsDir, app, 'src/config', `${app}.env`)) as Record<string, unknown>;
  const envClass = Object.values(exports).find((value): value is EnvClass => typeof value === 'function');
  if (!envClass) throw new Error(`apps/${app}/src/config/${app}.env exports no env class`);
  return envClass;
}
