import { Option } from 'commander';
import { createInterface } from 'node:readline/promises';
import { CliFailure, EXIT } from './exit-codes';

/** `--yes`: what a script passes to run a destructive command without the question. */
export const yesOption = () => new Option('-y, --yes', 'do it without asking (required when stdin is not a terminal)');

/**
 * Asks before a command that cannot be undone. With `--yes` it goes ahead; on a terminal it
 * asks and goes ahead only on "yes"; off a terminal (a script, a pipe, `kubectl exec` without
 * -t) it refuses with exit 64, before anything is sent.
 */
export async function confirmDestructive(what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY)
    throw new CliFailure(EXIT.usage, `error: refusing to ${what} without confirmation: stdin is not a terminal; pass --yes`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // End of input (Ctrl-D) closes the prompt without an answer: that is a no, not a hang or exit 0.
    const answer = await new Promise<string>((resolve, reject) => {
      prompt.once('close', () => reject(new CliFailure(EXIT.refused, '\ncancelled: nothing was changed')));
      prompt.question(`${what}: this cannot be undone. Type "yes" to go ahead: `).then(resolve, reject);
    });
    if (answer.trim().toLowerCase() !== 'yes') throw new CliFailure(EXIT.refused, 'cancelled: nothing was changed');
  } finally {
    prompt.close();
  }
}
