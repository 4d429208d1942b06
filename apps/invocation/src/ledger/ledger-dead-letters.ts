import { Injectable, Logger } from '@nestjs/common';
import { DEAD_LETTER_PREVIEW_CHARS, type DeadLetterReplay, type DeadLetterSummary, type LedgerRecord } from '@waggle/contracts';
import { cutText, deadLetterNotFound, describeFailure, isTransientFailure, type DeadLetterSource } from '@waggle/platform';
import type { LedgerDeadLetterEntity } from './entities/ledger-dead-letter.entity';
import { LedgerDeadLettersRepository } from './ledger-dead-letters.repository';
import { RequestsRepository } from './requests.repository';

function summaryOf(letter: LedgerDeadLetterEntity): DeadLetterSummary {
  return {
    source: 'ledger',
    id: letter.id,
    request_id: letter.requestId,
    workspace_id: letter.workspaceId,
    error: cutText(letter.error, DEAD_LETTER_PREVIEW_CHARS),
    attempts: letter.attempts,
    dead_lettered_at: letter.createdAt.toISOString(),
    payload: cutText(letter.record, DEAD_LETTER_PREVIEW_CHARS),
  };
}

/**
 * The request ledger's dead letters (`invocation.ledger_dead_letters`): records PostgreSQL
 * refused, and records their publishers gave up on. A replay writes the record as the consumer
 * would; if it is refused again it stays dead-lettered with the new error.
 */
@Injectable()
export class LedgerDeadLetters implements DeadLetterSource {
  readonly source = 'ledger';
  private readonly logger = new Logger(LedgerDeadLetters.name);

  constructor(
    private readonly letters: LedgerDeadLettersRepository,
    private readonly requests: RequestsRepository,
  ) {}

  async list(limit: number): Promise<DeadLetterSummary[]> {
    return (await this.letters.waiting(limit)).map(summaryOf);
  }

  async replay(id: string): Promise<DeadLetterReplay> {
    const letter = await this.letters.findWaiting(id);
    if (!letter) throw deadLetterNotFound('ledger', id);
    try {
      if (letter.truncated) throw new Error('the record was cut to a bound by its publisher and cannot be written');
      await this.requests.upsert(recordsOf(letter.record));
    } catch (error) {
      // An outage says nothing about the record: it stays as it was, and the operator hears of the outage.
      if (isTransientFailure(error)) throw error;
      const reason = describeFailure(error);
      await this.letters.replayFailed(letter.id, reason);
      this.logger.error(
        { dead_letter_id: letter.id, request_id: letter.requestId, error: reason },
        'ledger dead letter replayed and refused again; it stays dead-lettered',
      );
      return { source: 'ledger', id: letter.id, outcome: 'failed', error: reason };
    }
    await this.letters.markReplayed(letter.id);
    this.logger.log({ dead_letter_id: letter.id, request_id: letter.requestId }, 'ledger dead letter replayed: the record is written');
    return { source: 'ledger', id: letter.id, outcome: 'written', error: null };
  }
}

/** A dead letter holds one record, or (a message that was not read) whatever its message held. */
function recordsOf(text: string): LedgerRecord[] {
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null) throw new Error('the dead letter holds no ledger record');
  return (Array.isArray(parsed) ? parsed : [parsed]) as LedgerRecord[];
}
