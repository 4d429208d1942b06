import type { DeadLetterReplay, DeadLetterSourceName, DeadLetterSummary } from '@waggle/contracts';
import { WaggleException } from '@waggle/errors';

/**
 * One place dead letters are kept (a queue's failed set, the ledger's dead-letter table),
 * listed and replayed through its owner's `<owner>.dead-letters.*` patterns.
 */
export interface DeadLetterSource {
  readonly source: DeadLetterSourceName;
  /** The dead letters waiting for an operator, newest first, at most `limit`. */
  list(limit: number): Promise<DeadLetterSummary[]>;
  /** Runs or writes it again; throws not_found for an id that is not (or no longer) a dead letter. */
  replay(id: string): Promise<DeadLetterReplay>;
  close?(): Promise<void>;
}

export function deadLetterNotFound(source: DeadLetterSourceName, id: string): WaggleException {
  return new WaggleException('not_found', { detail: 'dead_letter_not_found', params: { source, id } });
}
