import { sendRpc, streamRpc } from '@waggle/contracts';
import { lastValueFrom, toArray } from 'rxjs';
import { toErrorBody, WaggleException } from '@waggle/errors';
import { BaseEnv, ConfigError, loadConfig, NatsRpcClient } from '@waggle/platform';
import { loadLocalEnvFile } from '@waggle/telemetry';
import { CommanderError } from 'commander';
import { join } from 'node:path';
import { buildCli, type Caller, type Collector } from './cli';

const CALL_TIMEOUT_MS = 15_000;
// The catalog file shipped with this build (dist/apps/catalog/src/models/data).
const SHIPPED_MODEL_CATALOG = join(__dirname, '../../../apps/catalog/src/models/data/models.yaml');

async function main(argv: string[]): Promise<number> {
  loadLocalEnvFile();
  const env = loadConfig(BaseEnv);
  const rpc = new NatsRpcClient(env.NATS_URL, 'waggle-cli');
  const json = argv.includes('--json');
  try {
    await rpc.connect();
    const call: Caller = (pattern, payload) => sendRpc(rpc, pattern, payload, { timeoutMs: CALL_TIMEOUT_MS });
    const collect: Collector = (pattern, payload) => lastValueFrom(streamRpc(rpc, pattern, payload, { timeoutMs: CALL_TIMEOUT_MS }).pipe(toArray()));
    await buildCli(call, collect, SHIPPED_MODEL_CATALOG).parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof WaggleException) {
      const body = toErrorBody(error, 'en');
      if (json) process.stderr.write(`${JSON.stringify(body)}\n`);
      else process.stderr.write(`error: ${error.message} (${error.code})${error.details ? `\n${JSON.stringify(error.details, null, 2)}` : ''}\n`);
      return 1;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 78;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await rpc.close().catch(() => undefined);
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
