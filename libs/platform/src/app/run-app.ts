import type { INestApplicationContext, LoggerService } from '@nestjs/common';
import { ConfigError } from '../config/env';
import { newErrorId } from '../context/request-context';
import { ShutdownState } from '../health/shutdown-state';
import { CONFIGURATION_EXIT_CODE, isNatsCredentialsRefusal, natsCredentialsRefusedLine } from '../nats/nats-connection';

export interface RunnableApp {
  app: INestApplicationContext;
  graceMs: number;
}

/**
 * Stops the app on SIGTERM/SIGINT: readiness turns false at once, intake stops, work
 * in flight gets the grace period, connections close, then the process exits. A second
 * signal exits immediately.
 */
export function installGracefulShutdown({ app, graceMs }: RunnableApp, onStopped?: () => Promise<void>): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    app.get(ShutdownState, { strict: false }).beginDrain();
    const deadline = setTimeout(() => {
      process.stderr.write(`shutdown exceeded ${graceMs} ms after ${signal}; exiting\n`);
      process.exit(1);
    }, graceMs + 5_000);
    deadline.unref();
    try {
      await app.close();
      await onStopped?.();
      process.exit(0);
    } catch (error) {
      process.stderr.write(`shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}

/** main.ts's catch: a configuration error is printed plainly; anything else in full. */
export function exitOnStartupFailure(app: string, error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${app}: refusing to start.\n${error.message}\n`);
    process.exit(CONFIGURATION_EXIT_CODE);
  }
  if (isNatsCredentialsRefusal(error)) {
    process.stderr.write(`${natsCredentialsRefusedLine(app, error, 'starting')}\n`);
    process.exit(CONFIGURATION_EXIT_CODE);
  }
  process.stderr.write(`${app}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

/**
 * The last line of defence for "no request takes a process down". Every asynchronous path
 * is meant to catch its own failures; a promise that still fails unobserved is logged in the
 * catalog's shape (`internal_server_error` with an error id) and the process goes on, since
 * one request's failure leaves no shared state broken. A synchronous exception nothing caught
 * may have left any state half-changed: the process says so plainly and exits 1, on purpose,
 * for its supervisor (Kubernetes, `npm run up`) to start a clean one.
 */
export function installProcessSafetyNet(app: string, logger: Pick<LoggerService, 'error' | 'fatal'>): void {
  process.on('unhandledRejection', (reason) => {
    logger.error(
      { err: reason, error_code: 'internal_server_error', error_id: newErrorId() },
      `${app}: an asynchronous failure was not handled where it happened; logged, and the process goes on`,
    );
  });
  process.on('uncaughtException', (error) => {
    logger.fatal?.(
      { err: error, error_code: 'internal_server_error', error_id: newErrorId() },
      `${app}: exiting: an exception was not caught and the process state cannot be trusted`,
    );
    process.stderr.write(`${app}: exiting after an uncaught exception: ${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
