import { readFileSync } from 'node:fs';
import {
  credsAuthenticator,
  NatsError,
  nkeyAuthenticator,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
  type ConnectionOptions,
  type TlsOptions,
} from 'nats';
import type { BaseEnv } from '../config/env';

/** The variables a NATS connection is made from (every app's BaseEnv, the CLI's, a test's). */
export type NatsEnv = Pick<
  BaseEnv,
  | 'NATS_URL'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_TOKEN'
  | 'NATS_NKEY_SEED_FILE'
  | 'NATS_CREDS_FILE'
  | 'NATS_TLS_CA_FILE'
  | 'NATS_TLS_CERT_FILE'
  | 'NATS_TLS_KEY_FILE'
>;

const NATS_AUTHENTICATION_LIST = 'NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE';

/** What the connection options need from the file system (tests give their own). */
export type ReadFile = (path: string) => Uint8Array;

function authenticator(env: NatsEnv, readFile: ReadFile): Authenticator | undefined {
  if (env.NATS_USER !== undefined && env.NATS_PASSWORD !== undefined)
    return usernamePasswordAuthenticator(env.NATS_USER, env.NATS_PASSWORD);
  if (env.NATS_TOKEN !== undefined) return tokenAuthenticator(env.NATS_TOKEN);
  // Files are read on every (re)connect, so a rotated Secret is picked up without a restart.
  const seedFile = env.NATS_NKEY_SEED_FILE;
  if (seedFile !== undefined) return nkeyAuthenticator(() => new TextEncoder().encode(new TextDecoder().decode(readFile(seedFile)).trim()));
  const credsFile = env.NATS_CREDS_FILE;
  if (credsFile !== undefined) return credsAuthenticator(() => readFile(credsFile));
  return undefined;
}

function tls(env: NatsEnv): TlsOptions | undefined {
  if (env.NATS_TLS_CA_FILE === undefined && env.NATS_TLS_CERT_FILE === undefined) return undefined;
  return {
    ...(env.NATS_TLS_CA_FILE !== undefined ? { caFile: env.NATS_TLS_CA_FILE } : {}),
    ...(env.NATS_TLS_CERT_FILE !== undefined ? { certFile: env.NATS_TLS_CERT_FILE, keyFile: env.NATS_TLS_KEY_FILE } : {}),
  };
}

/**
 * The one place a NATS connection's servers, credentials and TLS come from: the RPC client,
 * the services' NATS server, the CLI and the tests all connect with these options. Credentials
 * never travel in NATS_URL (BaseEnv refuses a URL with userinfo): they would be logged with
 * the server's address and shown in process lists.
 */
export function natsConnectionOptions(
  env: NatsEnv,
  readFile: ReadFile = readFileSync,
): Pick<ConnectionOptions, 'servers' | 'authenticator' | 'tls'> {
  const options: Pick<ConnectionOptions, 'servers' | 'authenticator' | 'tls'> = { servers: env.NATS_URL.split(',') };
  const auth = authenticator(env, readFile);
  if (auth) options.authenticator = auth;
  const tlsOptions = tls(env);
  if (tlsOptions) options.tls = tlsOptions;
  return options;
}

/** The server refused this process's credentials (wrong, missing, expired): no retry will help. */
export function isNatsCredentialsRefusal(error: unknown): error is NatsError {
  return error instanceof NatsError && error.isAuthError();
}

/** When a refusal happened: while connecting at start, or on a reconnect of a running process. */
export type NatsRefusalPhase = 'starting' | 'running';

/** Called once when the NATS server refuses the credentials, at connect or on a reconnect. */
export type NatsCredentialsRefused = (error: NatsError, phase: NatsRefusalPhase) => void;

/** Exit status of a configuration the process cannot run with (EX_CONFIG): supervisors do not restart it. */
export const CONFIGURATION_EXIT_CODE = 78;

/** The one line an app or the CLI prints when NATS refuses its credentials: the server's reason, never a credential. */
export function natsCredentialsRefusedLine(app: string, error: NatsError, phase: NatsRefusalPhase): string {
  const what = phase === 'starting' ? 'refusing to start' : 'stopping';
  // The server's own words (`-ERR 'Authorization Violation'`), without the protocol's quotes.
  const reason = error.message.replace(/^'(.*)'$/, '$1');
  return `${app}: ${what}: the NATS server refused its credentials (${reason}); set ${NATS_AUTHENTICATION_LIST} to credentials it accepts`;
}

/**
 * An app's answer to refused NATS credentials: one clear line on stderr and exit 78 (a
 * configuration error), rather than reconnecting in a loop nobody sees. A refusal at start
 * and one on a reconnect (credentials revoked or rotated away) end the same way; the
 * supervisor (`npm run up`) leaves a 78 stopped, Kubernetes shows it in the pod's status.
 */
export function exitOnNatsCredentialsRefused(app: string): NatsCredentialsRefused {
  return (error, phase) => {
    process.stderr.write(`${natsCredentialsRefusedLine(app, error, phase)}\n`);
    process.exit(CONFIGURATION_EXIT_CODE);
  };
}

/**
 * Calls `onRefused` when the connection closes because the server refused its credentials
 * on a reconnect (nats.js gives up after the same refusal twice in a row): the process
 * would otherwise keep running with no NATS at all.
 */
export function watchNatsCredentials(connection: { closed(): Promise<void | Error> }, onRefused: NatsCredentialsRefused | undefined): void {
  if (!onRefused) return;
  void connection.closed().then((error) => {
    if (isNatsCredentialsRefusal(error)) onRefused(error, 'running');
  });
}
