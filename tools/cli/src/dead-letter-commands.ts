import {
  DEAD_LETTER_OWNERS,
  DEAD_LETTER_SOURCES,
  DeadLetterPatterns,
  ownerOfDeadLetterSource,
  type DeadLetterReplay,
  type DeadLetterSourceName,
  type DeadLetterSummary,
} from '@waggle/contracts';
import { Argument, InvalidArgumentError, Option, type Command } from 'commander';
import type { Caller } from './cli';
import { CliFailure, exitCodeOf } from './exit-codes';
import { print } from './output';

const ERROR_COLUMN_CHARS = 80;

const deadLetterRow = (letter: DeadLetterSummary) => ({
  source: letter.source,
  id: letter.id,
  request_id: letter.request_id,
  attempts: letter.attempts,
  dead_lettered_at: letter.dead_lettered_at,
  error: letter.error.length > ERROR_COLUMN_CHARS ? `${letter.error.slice(0, ERROR_COLUMN_CHARS)}…` : letter.error,
});
const replayRow = (replay: DeadLetterReplay) => ({ source: replay.source, id: replay.id, outcome: replay.outcome, error: replay.error });

function positiveLimit(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 1000)
    throw new InvalidArgumentError(`not a whole number from 1 to 1000: ${value}`);
  return parsed;
}

/**
 * `dead-letters list|replay`: what could not be done after its bounded attempts, kept by the
 * service that owns it (a queue's failed set, the ledger's dead-letter table), asked over NATS.
 */
export function addDeadLetterCommands(program: Command, call: Caller): void {
  const json = () => new Option('--json', 'print JSON for scripts');
  const deadLetters = program
    .command('dead-letters')
    .description('failed jobs and ledger records that gave up after their bounded attempts');
  deadLetters
    .command('list')
    .description('dead letters waiting for an operator, newest first (every owning service, or the one of --source)')
    .addOption(new Option('--source <source>', 'only this source').choices(DEAD_LETTER_SOURCES))
    .option('--limit <n>', 'at most this many from each service', positiveLimit)
    .addOption(json())
    .action(async (options: { source?: DeadLetterSourceName; limit?: number; json?: boolean }) => {
      const owners = options.source ? [ownerOfDeadLetterSource(options.source)] : DEAD_LETTER_OWNERS;
      const answers = await Promise.allSettled(
        owners.map((owner) => call(DeadLetterPatterns.list[owner], { source: options.source, limit: options.limit })),
      );
      const letters = answers
        .flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []))
        .sort((a, b) => b.dead_lettered_at.localeCompare(a.dead_lettered_at));
      print(letters, Boolean(options.json), letters.map(deadLetterRow));
      // What did answer is printed; a service that did not is named, and the command fails
      // with the exit code of the first failure (69 when it was not there to answer).
      const failures = owners.flatMap((owner, index) => {
        const answer = answers[index] as PromiseSettledResult<unknown>;
        return answer.status === 'rejected' ? [{ owner, reason: answer.reason as unknown }] : [];
      });
      if (failures.length > 0) {
        const named = failures.map(({ owner, reason }) => `${owner}: ${reason instanceof Error ? reason.message : String(reason)}`);
        throw new CliFailure(exitCodeOf(failures[0].reason), `error: no dead letters from ${named.join('; ')}`);
      }
    });
  deadLetters
    .command('replay')
    .addArgument(new Argument('<source>', 'where it was dead-lettered').choices(DEAD_LETTER_SOURCES))
    .argument('<id>', 'its id, as listed')
    .description(
      'run a failed job again with a fresh attempt budget (a callback is redelivered), or write a ledger record again (if refused again it stays listed with the new error)',
    )
    .addOption(json())
    .action(async (source: string, id: string, options: { json?: boolean }) => {
      const owner = ownerOfDeadLetterSource(source as DeadLetterSourceName);
      const replay = await call(DeadLetterPatterns.replay[owner], { source: source as DeadLetterSourceName, id });
      print(replay, Boolean(options.json), [replayRow(replay)]);
    });
}
