import { send } from '@waggle/contracts';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { localizeDetails, toErrorBody, WaggleException } from '@waggle/errors';
import { BaseEnv, ConfigError, isNatsCredentialsRefusal, loadConfig, natsCredentialsRefusedLine, NatsRpcClient } from '@waggle/platform';
import { loadLocalEnvFile } from '@waggle/telemetry';
import { CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCli, type Caller, type Collector } from './cli';
import { CliFailure, configErrorLine, EXIT, exitCodeOf, isUnavailable } from './exit-codes';

/** How long the CLI waits for a pattern whose contract declares no time-out of its own (as an app's NATS_REQUEST_TIMEOUT_MS). */
const CALL_TIMEOUT_MS = 15_000;
// The catalog file shipped with this build (dist/apps/catalog/src/models/data).
const SHIPPED_MODEL_CATALOG = join(__dirname, '../../../apps/catalog/src/models/data/models.yaml');
// The repository's (and the image's) package.json, beside dist/.
const PACKAGE_JSON = join(__dirname, '../../../../package.json');

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The NATS servers of NATS_URL as an error message may show them: never a user or password. */
function serversForDisplay(url: string): string {
  return url.replace(/\/\/[^@/,]*@/g, '//');
}

/**
 * Parses the command line first and connects to NATS only when a command calls a service,
 * so --help, --version, usage errors and refused confirmations need neither NATS nor a
 * valid NATS_URL.
 */
async function main(argv: string[]): Promise<number> {
  loadLocalEnvFile();
  const json = argv.includes('--json');
  let rpc: NatsRpcClient | undefined;
  let connecting: Promise<NatsRpcClient> | undefined;
  const connected = (): Promise<NatsRpcClient> =>
    (connecting ??= (async () => {
      const env = loadConfig(BaseEnv);
      // Servers, credentials and TLS as every app connects (NATS_URL, NATS_USER…, NATS_TLS_…).
      rpc = new NatsRpcClient(env, 'waggle-cli', { defaultTimeoutMs: CALL_TIMEOUT_MS });
      try {
        await rpc.connect();
      } catch (error) {
        if (isNatsCredentialsRefusal(error)) throw new CliFailure(EXIT.config, natsCredentialsRefusedLine('waggle-cli', error, 'starting'));
        const reason = error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
        throw new CliFailure(EXIT.unavailable, `error: NATS is not reachable at ${serversForDisplay(env.NATS_URL)} (${reason})`);
      }
      return rpc;
    })());
  try {
    const call: Caller = async (pattern, payload) => send(await connected(), pattern, payload);
    const collect: Collector = async (pattern, payload, onValue) =>
      lastValueFrom(
        send(await connected(), pattern, payload).pipe(
          tap((value) => onValue?.(value)),
          toArray(),
        ),
      );
    await buildCli(call, collect, SHIPPED_MODEL_CATALOG, packageVersion()).parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    report(error, json);
    return exitCodeOf(error);
  } finally {
    await rpc?.close().catch(() => undefined);
  }
}

/** One line on stderr (a refused call's error body with --json); commander has printed its own errors already. */
function report(error: unknown, json: boolean): void {
  if (error instanceof CommanderError) return;
  if (error instanceof WaggleException) {
    const body = toErrorBody(error, 'en');
    const pattern = (error.details as { pattern?: unknown } | undefined)?.pattern;
    if (!json && isUnavailable(error))
      return void process.stderr.write(`error: no answer: ${error.message} (${error.code}${pattern ? `, ${String(pattern)}` : ''})\n`);
    if (json) process.stderr.write(`${JSON.stringify(body)}\n`);
    else
      process.stderr.write(
        `error: ${error.message} (${error.code})${error.details ? `\n${JSON.stringify(localizeDetails(error.details, 'en'), null, 2)}` : ''}\n`,
      );
    return;
  }
  if (error instanceof ConfigError) return void process.stderr.write(`${configErrorLine(error)}\n`);
  if (error instanceof CliFailure) return void process.stderr.write(`${error.message}\n`);
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
}

main(process.argv.slice(2)).then((code) => process.exit(code));
