import { ConfigError } from '@waggle/platform';
import { WaggleException } from '@waggle/errors';
import { CommanderError } from 'commander';

/**
 * The CLI's exit codes, the sysexits.h values operators' scripts already know. Printed by
 * `--help` and listed in docs/operations/cli.md.
 */
export const EXIT = {
  ok: 0,
  /** The service answered with an error (not found, validation, conflict…), or the operator declined a confirmation. */
  refused: 1,
  /** EX_USAGE: unknown command or flag, missing or invalid argument, unreadable input file, a destructive command without --yes off a terminal. */
  usage: 64,
  /** EX_UNAVAILABLE: NATS not reachable, no service answering the pattern, a time-out, a service answering that it is unavailable. */
  unavailable: 69,
  /** EX_DATAERR: `experiment run --wait` saw the run end other than completed, or an active candidate miss its min_pass_rate (a CI gate). */
  experimentMissed: 65,
  /** EX_CONFIG: a bad setting (NATS_URL…). */
  config: 78,
} as const;

export const EXIT_CODES_HELP = `
Exit codes:
  0   done
  1   refused: the service answered with an error (not found, validation, conflict), or a confirmation was declined
  64  usage: unknown command or flag, missing or invalid argument, unreadable input file, or a destructive command without --yes when stdin is not a terminal
  65  experiment missed: \`experiment run --wait\` saw the run not complete, or a candidate below its min_pass_rate
  69  unavailable: NATS not reachable, no service answered, or the call timed out
  78  configuration: a bad setting such as NATS_URL

The CLI connects to NATS (NATS_URL) only to run a command: --help and --version need no connection.`;

/** A failure the CLI reports in one line with its own exit code. */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** True for a service error that means "not there to answer" rather than "answered no". */
export function isUnavailable(error: WaggleException): boolean {
  return error.code === 'upstream_request_failed' || [502, 503, 504].includes(error.status);
}

/** The exit code for an error that ended a command. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliFailure) return error.exitCode;
  // commander's own errors (unknown command or option, missing argument, help shown as an error) are usage;
  // help and version it printed on request exit 0. Other CommanderErrors carry the code they were raised with.
  if (error instanceof CommanderError)
    return error.code.startsWith('commander.') ? (error.exitCode === 0 ? EXIT.ok : EXIT.usage) : error.exitCode;
  if (error instanceof ConfigError) return EXIT.config;
  if (error instanceof WaggleException) return isUnavailable(error) ? EXIT.unavailable : EXIT.refused;
  return EXIT.refused;
}

/** A configuration error on one line, naming each bad variable (never its value). */
export function configErrorLine(error: ConfigError): string {
  return `error: invalid configuration: ${error.problems.join('; ')}`;
}
