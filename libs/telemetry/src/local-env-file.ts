import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Loads `.env` from the working directory, if there is one, without overriding variables
 * already set. It happens here, the first thing every process runs, so that telemetry
 * settings in `.env` apply too.
 */
export function loadLocalEnvFile(path = resolve(process.cwd(), '.env')): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}
