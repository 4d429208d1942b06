/** Helpers for running a fake server as its own process (tools/fake-*): settings from the environment, banner, shutdown. */

/** Exits with EX_CONFIG after naming the bad setting. */
function refuse(tool: string, message: string): never {
  process.stderr.write(`${tool}: ${message}\n`);
  process.exit(78);
}

/** A non-negative integer setting (a port, a count), or `fallback` when unset. */
export function integerFromEnv(tool: string, variable: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = process.env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) refuse(tool, `${variable} must be an integer from 0 to ${max}`);
  return value;
}

/** A certificate and key from `<prefix>_TLS_CERT_FILE` and `<prefix>_TLS_KEY_FILE` (PEM), or none. */
export function tlsFromEnv(tool: string, prefix: string, read: (path: string) => string): { key: string; cert: string } | undefined {
  const certFile = process.env[`${prefix}_TLS_CERT_FILE`];
  const keyFile = process.env[`${prefix}_TLS_KEY_FILE`];
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) refuse(tool, `set both ${prefix}_TLS_CERT_FILE and ${prefix}_TLS_KEY_FILE, or neither`);
  return { cert: read(certFile), key: read(keyFile) };
}

/** Starts a fake server, prints its banner, and stops it on SIGINT or SIGTERM; a failure to start exits 1. */
export function runFakeServer(tool: string, start: () => Promise<{ banner: string[]; stop(): Promise<void> }>): void {
  start()
    .then(({ banner, stop }) => {
      process.stdout.write([...banner, ''].join('\n'));
      const shutdown = (): void => {
        void stop().then(() => process.exit(0));
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    })
    .catch((error: unknown) => {
      process.stderr.write(`${tool}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
