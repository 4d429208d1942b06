import { sendRpc, streamRpc } from '@waggle/contracts';
import { lastValueFrom, toArray } from 'rxjs';
import { toErrorBody, WaggleException } from '@waggle/errors';
import { BaseEnv, CONFIGURATION_EXIT_CODE, ConfigError, isNatsCredentialsRefusal, loadConfig, natsCredentialsRefusedLine, NatsRpcClient } from '@waggle/platform';
import { loadLocalEnvFile } from '@waggle/telemetry';
import { CommanderError } from 'commander';
import { join } from 'node:path';
import { buildCli, type Caller, type Collector } from './cli';

const CALL_TIMEOUT_MS = 15_000;
// The catalog file shipped with this build (dist/apps/catalog/src/models/data).
const SHIPPED_MODEL_CATALOG = join(__dirname, '../../../apps/catalog/src/models/data/models.yaml');

async function main(argv: string[]): Promise<number> {
  loadLocalEnvFile();
  const json = argv.includes('--json');
  let rpc: NatsRpcClient | undefined;
  try {
    // Servers, credentials and TLS as every app connects (NATS_URL, NATS_USER…, NATS_TLS_…).
    const client = new NatsRpcClient(loadConfig(BaseEnv), 'waggle-cli');
    rpc = client;
    await client.connect();
    const call: Caller = (pattern, payload) => sendRpc(client, pattern, payload, { timeoutMs: CALL_TIMEOUT_MS });
    const collect: Collector = (pattern, payload) => lastValueFrom(streamRpc(client, pattern, payload, { timeoutMs: CALL_TIMEOUT_MS }).pipe(toArray()));
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
      return CONFIGURATION_EXIT_CODE;
    }
    if (isNatsCredentialsRefusal(error)) {
      process.stderr.write(`${natsCredentialsRefusedLine('waggle-cli', error, 'starting')}\n`);
      return CONFIGURATION_EXIT_CODE;
    }
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await rpc?.close().catch(() => undefined);
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
